import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { LspError } from './errors.js';
import {
  displayPath,
  displayUri,
  isInside,
  pathOf,
  resolveInWorkspace,
  uriOf,
} from './workspace-files.js';

let ws: TempDir;
let outside: TempDir;
before(() => {
  ws = tempDir('mcpctl-lsp-ws-');
  outside = tempDir('mcpctl-lsp-out-');
  mkdirSync(ws.file('src/deep'), { recursive: true });
  writeFileSync(ws.file('src/deep/a b.ts'), '');
  writeFileSync(outside.file('secret.ts'), '');
  symlinkSync(outside.file('secret.ts'), ws.file('src/escape.ts'));
  symlinkSync(ws.file('src/deep/a b.ts'), ws.file('src/alias.ts'));
});
after(() => {
  ws.remove();
  outside.remove();
});

const refused = (pattern: RegExp) => (err: unknown) =>
  err instanceof LspError && err.kind === 'badRequest' && pattern.test(err.message);

test('a path relative to the workspace or absolute inside it resolves to its realpath', async () => {
  const real = ws.file('src/deep/a b.ts');
  assert.equal(await resolveInWorkspace(ws.path, 'src/deep/a b.ts'), real);
  assert.equal(await resolveInWorkspace(ws.path, './src/../src/deep/a b.ts'), real);
  assert.equal(await resolveInWorkspace(ws.path, real), real);
  // A symlink that stays inside is fine, and answers name its target.
  assert.equal(await resolveInWorkspace(ws.path, 'src/alias.ts'), real);
});

test('outside, out through a symlink, missing, a directory, empty: refused, naming the argument', async () => {
  await assert.rejects(
    resolveInWorkspace(ws.path, '../x.ts'),
    refused(/^\.\.\/x\.ts is outside the workspace/),
  );
  await assert.rejects(
    resolveInWorkspace(ws.path, outside.file('secret.ts')),
    refused(/is outside the workspace/),
  );
  await assert.rejects(
    resolveInWorkspace(ws.path, 'src/escape.ts'),
    refused(/src\/escape\.ts leads outside the workspace/),
  );
  await assert.rejects(
    resolveInWorkspace(ws.path, 'src/none.ts'),
    refused(/no such file in the workspace: src\/none\.ts/),
  );
  await assert.rejects(resolveInWorkspace(ws.path, 'src'), refused(/src is not a regular file/));
  await assert.rejects(resolveInWorkspace(ws.path, ' '), refused(/file must be a path/));
});

test('answers show paths relative to the workspace, absolute outside, other schemes as they are', () => {
  assert.equal(displayPath(ws.path, ws.file('src/deep/a b.ts')), 'src/deep/a b.ts');
  assert.equal(displayPath(ws.path, '/usr/lib/x.d.ts'), '/usr/lib/x.d.ts');
  assert.equal(displayUri(ws.path, uriOf(ws.file('src/deep/a b.ts'))), 'src/deep/a b.ts');
  assert.equal(
    displayUri(ws.path, 'jdt://contents/rt.jar/String.class'),
    'jdt://contents/rt.jar/String.class',
  );
});

test('URIs are compared as paths: spellings of one file agree', () => {
  const file = path.join(ws.path, 'größe 1.ts');
  assert.equal(pathOf(uriOf(file)), file);
  // vscode-uri percent-encodes more than Node does; both mean the same file.
  const encoded = 'file://' + file.split('/').map(encodeURIComponent).join('/');
  assert.equal(pathOf(encoded), file);
  assert.equal(pathOf('untitled:Untitled-1'), undefined);
  assert.equal(pathOf('not a uri'), undefined);
  assert.ok(isInside('/a/b', '/a/b'));
  assert.ok(isInside('/a/b', '/a/b/c'));
  assert.ok(!isInside('/a/b', '/a/bc'));
  assert.ok(!isInside('/a/b', '/a'));
});
