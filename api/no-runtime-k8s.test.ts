/**
 * DESIGN §6: types come from @kubernetes/client-node by `import type` only; no runtime code of
 * that package is ever loaded. This walks every emitted JavaScript file of the build this test
 * belongs to and fails if any of them imports, re-exports, `require`s or dynamically imports the
 * package (or a subpath of it). Comments and ordinary strings that merely mention it are fine.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const PACKAGE = '@kubernetes/client-node';

/** The build output folder: the one that holds this compiled test's `api/` folder. */
const BUILD_ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function emittedJs(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...emittedJs(full));
    } else if (/\.(c|m)?js$/.test(entry.name)) {
      out.push(full);
    }
  }
  return out;
}

function namesPackage(specifier: string): boolean {
  return specifier === PACKAGE || specifier.startsWith(`${PACKAGE}/`);
}

/**
 * Every place in `source` that loads the package at run time: static imports and re-exports,
 * and any call (`require`, `import()`, a `createRequire` result, ...) whose first argument is
 * a string literal naming it. Returns "line:column" of each.
 */
export function runtimeLoadsOf(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`${line + 1}:${character + 1}`);
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      namesPackage(node.moduleSpecifier.text)
    ) {
      report(node);
    } else if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      if (first !== undefined && ts.isStringLiteralLike(first) && namesPackage(first.text))
        report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('no runtime @kubernetes/client-node (DESIGN §6)', { timeout: 60_000 }, () => {
  it('recognises every way of loading the package, and nothing else', () => {
    const offending = [
      `import k8s from '${PACKAGE}';`,
      `import '${PACKAGE}';`,
      `export { V1Condition } from '${PACKAGE}';`,
      `export * from '${PACKAGE}/dist/gen';`,
      `const k = require("${PACKAGE}");`,
      `const k = await import('${PACKAGE}');`,
      `const req = createRequire(import.meta.url); req(\`${PACKAGE}\`);`,
    ];
    for (const text of offending) assert.equal(runtimeLoadsOf('x.js', text).length, 1, text);
    const harmless = [
      `// Types come from ${PACKAGE} by import type only`,
      `const message = "import from '${PACKAGE}' is forbidden";`,
      `import x from '${PACKAGE}-other';`,
      `import y from 'other/${PACKAGE}';`,
    ];
    for (const text of harmless) assert.deepEqual(runtimeLoadsOf('x.js', text), [], text);
  });

  it('finds no emitted .js file that loads it', () => {
    const files = emittedJs(BUILD_ROOT);
    // Make sure we are looking at the real build: the file that uses the package's types is in it.
    assert.ok(
      files.includes(path.join(BUILD_ROOT, 'api', 'object.js')),
      `api/object.js not found under ${BUILD_ROOT}`,
    );
    const offenders = files.flatMap((file) =>
      runtimeLoadsOf(file, readFileSync(file, 'utf8')).map(
        (at) => `${path.relative(BUILD_ROOT, file)}:${at}`,
      ),
    );
    assert.deepEqual(offenders, [], `runtime loads of ${PACKAGE}: ${offenders.join(', ')}`);
  });
});
