/**
 * The modules a built ES module file loads, read from its syntax (TypeScript's parser), for the
 * package test: every package a shipped file imports must be a runtime dependency.
 *
 * Guarantees:
 * - `importsOf` finds static imports and re-exports (`import … from 'x'`, `import 'x'`,
 *   `export … from 'x'`), `import('x')`, and calls of `require` or of a name bound to
 *   `createRequire(…)` (`requireHere('yaml')`, how cli/output/escape.ts loads yaml lazily).
 *   Type-only imports do not exist in built JavaScript, so none is reported.
 * - An `import(…)` or require call whose argument is not a string literal is reported in
 *   `unknown` (with its text), never silently skipped: a test cannot check what it cannot read.
 * - `packageOf` names the package a bare specifier loads (`@scope/name/sub/path.js` →
 *   `@scope/name`, `name/sub` → `name`); `isBare` is false for relative, absolute, URL and
 *   built-in (`node:fs`, `fs`) specifiers.
 */
import { isBuiltin } from 'node:module';
import ts from 'typescript';

export interface ModuleImports {
  /** Every specifier loaded with a literal name, in source order. */
  readonly specifiers: readonly string[];
  /** Loads whose name is computed at run time: the call's text. */
  readonly unknown: readonly string[];
}

export function importsOf(fileName: string, text: string): ModuleImports {
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  const requireNames = new Set(['require']);
  const specifiers: string[] = [];
  const unknown: string[] = [];

  // Names bound to createRequire(...) first, so a call before its declaration is still seen.
  const findRequires = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer !== undefined &&
      ts.isCallExpression(node.initializer) &&
      ts.isIdentifier(node.initializer.expression) &&
      node.initializer.expression.text === 'createRequire'
    )
      requireNames.add(node.name.text);
    ts.forEachChild(node, findRequires);
  };
  findRequires(source);

  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      specifiers.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && requireNames.has(callee.text));
      if (loads) {
        const [first] = node.arguments;
        if (first !== undefined && ts.isStringLiteralLike(first)) specifiers.push(first.text);
        else unknown.push(node.getText(source));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { specifiers, unknown };
}

export function isBare(specifier: string): boolean {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return false; // node:, file:, data:
  return !isBuiltin(specifier);
}

export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}
