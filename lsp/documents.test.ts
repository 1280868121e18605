import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { DocumentSync, type DocumentOptions } from './documents.js';
import { LspError } from './errors.js';
import { uriOf } from './workspace-files.js';

const T = { timeout: 15_000 };

interface Sent {
  readonly method: string;
  readonly params: {
    textDocument: { uri: string; version?: number; languageId?: string; text?: string };
    contentChanges?: Array<{ text: string }>;
  };
}

let dir: TempDir;
before(() => {
  dir = tempDir('mcpctl-lsp-docs-');
});
after(() => dir.remove());

/** A DocumentSync over a recording channel and a clock the test moves. */
function setup(options: DocumentOptions = {}) {
  const sent: Sent[] = [];
  let clock = 1_000;
  const docs = new DocumentSync(
    { notify: (method, params) => sent.push({ method, params: params as Sent['params'] }) },
    { '.ts': 'typescript', '.d.ts': 'typescript-declarations', '.sh': 'shellscript' },
    options,
    () => clock,
  );
  const said = (): string[] =>
    sent.splice(0).map((s) => {
      const file = s.params.textDocument.uri.split('/').pop();
      const v = s.params.textDocument.version;
      return `${s.method.replace('textDocument/', '')} ${file}${v !== undefined ? ` v${v}` : ''}`;
    });
  return { docs, sent, said, tick: (ms: number) => (clock += ms) };
}

test(
  'open once, nothing for the same content, a full-text change with the next version',
  T,
  async () => {
    const { docs, sent, said } = setup();
    const file = dir.file('a.ts');
    writeFileSync(file, 'let a = 1;\n');
    const first = await docs.sync(file);
    assert.equal(first.version, 1);
    assert.equal(first.via, 'open');
    assert.deepEqual(sent[0]?.params.textDocument, {
      uri: uriOf(file),
      languageId: 'typescript',
      version: 1,
      text: 'let a = 1;\n',
    });
    assert.deepEqual(said(), ['didOpen a.ts v1']);
    writeFileSync(file, 'let a = 1;\n'); // rewritten, same content
    assert.equal((await docs.sync(file)).version, 1);
    assert.deepEqual(said(), []);
    writeFileSync(file, 'let a = 2;\n');
    const changed = await docs.sync(file);
    assert.equal(changed.version, 2);
    assert.equal(changed.via, 'change');
    assert.deepEqual(sent[0]?.params.contentChanges, [{ text: 'let a = 2;\n' }]);
    assert.deepEqual(said(), ['didChange a.ts v2']);
    docs.dispose();
  },
);

test("delivery 'open': a change or a version that came by didChange is re-opened", T, async () => {
  const { docs, said } = setup();
  const file = dir.file('b.ts');
  writeFileSync(file, 'one');
  await docs.sync(file, { delivery: 'open' });
  assert.deepEqual(said(), ['didOpen b.ts v1']);
  // Same content, came by open: nothing.
  await docs.sync(file, { delivery: 'open' });
  assert.deepEqual(said(), []);
  writeFileSync(file, 'two');
  const reopened = await docs.sync(file, { delivery: 'open' });
  assert.equal(reopened.via, 'open');
  assert.deepEqual(said(), ['didClose b.ts', 'didOpen b.ts v2']);
  writeFileSync(file, 'three');
  await docs.sync(file); // a hover would do this
  assert.deepEqual(said(), ['didChange b.ts v3']);
  await docs.sync(file, { delivery: 'open' });
  assert.deepEqual(said(), ['didClose b.ts', 'didOpen b.ts v4']);
  docs.dispose();
});

test('the longest configured extension decides the language; others are refused', T, async () => {
  const { docs, sent } = setup();
  writeFileSync(dir.file('types.d.ts'), 'declare const x: number;');
  await docs.sync(dir.file('types.d.ts'));
  assert.equal(sent[0]?.params.textDocument.languageId, 'typescript-declarations');
  writeFileSync(dir.file('notes.md'), '# hi');
  await assert.rejects(
    docs.sync(dir.file('notes.md')),
    (err: unknown) =>
      err instanceof LspError &&
      err.kind === 'badRequest' &&
      err.message ===
        'no language server handles notes.md: the configured extensions are .d.ts, .sh, .ts',
  );
  docs.dispose();
});

test('a deleted file is closed and reported; a file over the limit is refused', T, async () => {
  const { docs, said } = setup({ maxFileBytes: 10 });
  const file = dir.file('gone.ts');
  writeFileSync(file, 'x');
  await docs.sync(file);
  rmSync(file);
  await assert.rejects(docs.sync(file), /no such file: .*gone\.ts/);
  assert.deepEqual(said(), ['didOpen gone.ts v1', 'didClose gone.ts']);
  writeFileSync(dir.file('big.ts'), 'x'.repeat(11));
  await assert.rejects(
    docs.sync(dir.file('big.ts')),
    /too large to send to a language server \(11 B, the limit is 10 B\)/,
  );
  docs.dispose();
});

test('concurrent syncs of one file: one open, versions only grow', T, async () => {
  const { docs, said } = setup();
  const file = dir.file('c.ts');
  writeFileSync(file, 'v');
  const all = await Promise.all([docs.sync(file), docs.sync(file), docs.sync(file)]);
  assert.deepEqual(
    all.map((d) => d.version),
    [1, 1, 1],
  );
  assert.deepEqual(said(), ['didOpen c.ts v1']);
  docs.dispose();
});

test('bounded: at most maxOpen documents, the least recently used closed first', T, async () => {
  const { docs, said, tick } = setup({ maxOpen: 2 });
  for (const name of ['m1.ts', 'm2.ts', 'm3.ts']) writeFileSync(dir.file(name), name);
  await docs.sync(dir.file('m1.ts'));
  tick(10);
  await docs.sync(dir.file('m2.ts'));
  tick(10);
  await docs.sync(dir.file('m1.ts')); // used again: m2 is now the oldest
  tick(10);
  await docs.sync(dir.file('m3.ts'));
  assert.deepEqual(said(), [
    'didOpen m1.ts v1',
    'didOpen m2.ts v2',
    'didClose m2.ts',
    'didOpen m3.ts v3',
  ]);
  assert.deepEqual(docs.openPaths(), [dir.file('m1.ts'), dir.file('m3.ts')]);
  docs.dispose();
});

test('documents unused for idleMs are closed; used ones stay', T, async () => {
  const { docs, said, tick } = setup({ idleMs: 1000 });
  for (const name of ['i1.ts', 'i2.ts']) writeFileSync(dir.file(name), name);
  await docs.sync(dir.file('i1.ts'));
  await docs.sync(dir.file('i2.ts'));
  tick(600);
  docs.touch(dir.file('i2.ts'));
  tick(600);
  docs.closeIdle();
  assert.deepEqual(said(), ['didOpen i1.ts v1', 'didOpen i2.ts v2', 'didClose i1.ts']);
  assert.deepEqual(docs.openPaths(), [dir.file('i2.ts')]);
  docs.dispose();
});

test('the sweeper closes idle documents by itself', T, async () => {
  const sent: string[] = [];
  const docs = new DocumentSync(
    { notify: (method) => sent.push(method) },
    { '.ts': 'typescript' },
    { idleMs: 50 },
  );
  writeFileSync(dir.file('sweep.ts'), 'x');
  await docs.sync(dir.file('sweep.ts'));
  await until('the idle document to be closed', () => docs.openCount === 0, { timeoutMs: 5000 });
  assert.deepEqual(sent, ['textDocument/didOpen', 'textDocument/didClose']);
  docs.dispose();
});

test('refreshOthers: an open file changed on disk is synced, a deleted one closed', T, async () => {
  const { docs, said } = setup();
  for (const name of ['r1.ts', 'r2.ts', 'r3.ts']) writeFileSync(dir.file(name), name);
  for (const name of ['r1.ts', 'r2.ts', 'r3.ts']) await docs.sync(dir.file(name));
  said();
  writeFileSync(dir.file('r2.ts'), 'changed by a shell');
  rmSync(dir.file('r3.ts'));
  await docs.refreshOthers(dir.file('r1.ts'));
  assert.deepEqual(said().sort(), ['didChange r2.ts v4', 'didClose r3.ts']);
  assert.equal(docs.get(dir.file('r2.ts'))?.text, 'changed by a shell');
  docs.dispose();
});

test(
  'reopen: a new server process gets the documents again, files that are gone skipped',
  T,
  async () => {
    const before = setup();
    for (const name of ['o1.ts', 'o2.ts']) writeFileSync(dir.file(name), name);
    await before.docs.sync(dir.file('o1.ts'));
    await before.docs.sync(dir.file('o2.ts'));
    const paths = before.docs.openPaths();
    before.docs.dispose();
    rmSync(dir.file('o2.ts'));
    const after = setup();
    await after.docs.reopen(paths);
    assert.deepEqual(after.said(), ['didOpen o1.ts v1']);
    after.docs.dispose();
  },
);

test('documents that became FIFOs are closed and refused, never waited for', T, async (t) => {
  const { docs, said } = setup();
  const names = ['p1.ts', 'p2.ts', 'p3.ts', 'p4.ts', 'p5.ts'];
  for (const name of names) writeFileSync(dir.file(name), name);
  for (const name of names) await docs.sync(dir.file(name));
  said();
  // Four FIFOs: as many as libuv has threads for file work, so a read that waited would
  // stall every file operation of the process.
  const fifos = names.slice(1).map((name) => dir.file(name));
  t.after(() => releaseReaders(fifos));
  for (const fifo of fifos) {
    rmSync(fifo);
    makeFifo(fifo);
  }
  await docs.refreshOthers(dir.file('p1.ts'));
  assert.deepEqual(said().sort(), [
    'didClose p2.ts',
    'didClose p3.ts',
    'didClose p4.ts',
    'didClose p5.ts',
  ]);
  await assert.rejects(
    docs.sync(dir.file('p2.ts')),
    (err: unknown) =>
      err instanceof LspError &&
      err.kind === 'badRequest' &&
      /p2\.ts.* a FIFO \(named pipe\), not a regular file/.test(err.message),
  );
  // The process's file operations still run.
  assert.equal((await docs.sync(dir.file('p1.ts'))).text, 'p1.ts');
  docs.dispose();
});

test('a document whose folder became a symlink to elsewhere is closed, not read', T, async (t) => {
  const outside = tempDir('mcpctl-lsp-docs-outside-');
  t.after(outside.remove);
  writeFileSync(outside.file('a.ts'), 'const secret = 1;');
  const { docs, sent, said } = setup();
  const folder = dir.file('linked');
  mkdirSync(folder);
  const file = dir.file('linked/a.ts');
  writeFileSync(file, 'const mine = 1;');
  await docs.sync(file);
  said();
  renameSync(folder, dir.file('linked-before'));
  symlinkSync(outside.path, folder);
  await docs.refreshOthers();
  await assert.rejects(docs.sync(file), /linked\/a\.ts.*symbolic link/);
  assert.ok(
    sent.every((s) => !JSON.stringify(s).includes('secret')),
    'the server never got the file the link leads to',
  );
  assert.deepEqual(said(), ['didClose a.ts']);
  docs.dispose();
});
