/**
 * kind-names.ts promises that a kind's distinctive names are written there and in no other
 * production module. This parses every production TypeScript source of the repository and
 * fails on a string literal (a value or a literal type, template text included) that is one of
 * those names, `NAME/…` or `NAMEList`. Comments are free to mention them.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { LANGUAGE_SERVER_NAMES, MCP_SERVER_NAMES } from './kind-names.js';
import { KINDS, SERVER_KINDS } from './kinds.js';

/** The repository: the build folder's parent (the build holds this test's `api/`). */
const REPO = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));

/** The folders of production code (DESIGN §3), without tests or the tests' helpers. */
const PRODUCTION = [
  'api',
  'informers',
  'approvals',
  'proc',
  'lsp',
  'pool',
  'auth',
  'reconcilers',
  'controller',
  'gateway',
  'cli',
];

function productionSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing' && entry.name !== 'node_modules')
        out.push(...productionSources(full));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      out.push(full);
    }
  }
  return out;
}

/** The distinctive names: object kinds and the TYPE words no English text uses. */
const NAMES: readonly string[] = [MCP_SERVER_NAMES, LANGUAGE_SERVER_NAMES]
  .flatMap((k) => [k.kind, k.objectPrefix, k.resource, ...k.typeWords])
  .filter((word) => !['server', 'servers', 'lsp'].includes(word));

function namesAKind(text: string): boolean {
  return NAMES.some((n) => text === n || text === `${n}List` || text.startsWith(`${n}/`));
}

/** "file:line" of every literal in `file` that is a kind's name. */
function kindLiterals(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node)) &&
      namesAKind(node.text)
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${path.relative(REPO, file)}:${line + 1} ${JSON.stringify(node.text)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('kind names', { timeout: 60_000 }, () => {
  it('appear as literals in kind-names.ts only', () => {
    assert.ok(existsSync(path.join(REPO, 'api', 'kind-names.ts')), `sources under ${REPO}`);
    const files = PRODUCTION.filter((d) => existsSync(path.join(REPO, d))).flatMap((d) =>
      productionSources(path.join(REPO, d)),
    );
    assert.ok(files.length > 100, `found ${files.length} production sources`);
    const own = path.join(REPO, 'api', 'kind-names.ts');
    const elsewhere = files.filter((f) => f !== own).flatMap(kindLiterals);
    assert.deepEqual(elsewhere, []);
    // The scan itself finds what it looks for: the names module is full of them.
    assert.ok(kindLiterals(own).length >= 6);
  });

  it('give every kind disjoint TYPE words, each naming its own resource', () => {
    const words = SERVER_KINDS.flatMap((k) => KINDS[k].typeWords);
    assert.equal(new Set(words).size, words.length);
    for (const k of SERVER_KINDS) assert.ok(KINDS[k].typeWords.includes(KINDS[k].objectPrefix));
  });
});
