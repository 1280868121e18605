import assert from 'node:assert/strict';
import { mkdirSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { tempDir } from '../testing/temp-dir.js';
import { readRealFile, unchangedSince } from './real-file.js';

test(
  'reads a file at its real path, with the stats of what it read',
  { timeout: 5000 },
  async (t) => {
    const dir = tempDir('mcpctl-lsp-real-');
    t.after(dir.remove);
    writeFileSync(dir.file('a.ts'), 'let a = 1;');
    const read = await readRealFile(dir.file('a.ts'), 100);
    assert.equal(read.kind, 'ok');
    if (read.kind === 'ok') {
      assert.equal(read.text, 'let a = 1;');
      assert.equal(read.stamp.stats.ino, statSync(dir.file('a.ts'), { bigint: true }).ino);
    }
    assert.deepEqual(await readRealFile(dir.file('a.ts'), 5), { kind: 'tooLarge', size: 10 });
    assert.deepEqual(await readRealFile(dir.file('gone.ts'), 100), { kind: 'missing' });
  },
);

test(
  'a path through a link, of the file or of a folder, is refused unread',
  { timeout: 5000 },
  async (t) => {
    const dir = tempDir('mcpctl-lsp-real-');
    t.after(dir.remove);
    mkdirSync(dir.file('real'));
    writeFileSync(dir.file('real/a.ts'), 'secret');
    symlinkSync(dir.file('real/a.ts'), dir.file('link.ts'));
    symlinkSync(dir.file('real'), dir.file('folder'));
    for (const file of [dir.file('link.ts'), dir.file('folder/a.ts')]) {
      const read = await readRealFile(file, 100);
      assert.equal(read.kind, 'error', file);
      assert.match(read.kind === 'error' ? read.message : '', /symbolic link/);
    }
  },
);

test('a FIFO is refused at once, never waited for', { timeout: 5000 }, async (t) => {
  const dir = tempDir('mcpctl-lsp-real-');
  const fifo = dir.file('pipe.ts');
  makeFifo(fifo);
  t.after(() => {
    releaseReaders([fifo]);
    dir.remove();
  });
  const read = await readRealFile(fifo, 100);
  assert.match(
    read.kind === 'error' ? read.message : '',
    /FIFO \(named pipe\), not a regular file/,
  );
});

test(
  'unchangedSince: one stat proves a file unchanged only when it changed well before the read',
  { timeout: 5000 },
  async (t) => {
    const dir = tempDir('mcpctl-lsp-real-');
    t.after(dir.remove);
    const file = dir.file('a.ts');
    writeFileSync(file, 'let a = 1;');
    const read = await readRealFile(file, 100);
    assert.equal(read.kind, 'ok');
    if (read.kind !== 'ok') return;
    const now = () => statSync(file, { bigint: true });
    // Read just after it was written: a write in the same tick of the clock would leave the
    // same size and times, so this read proves nothing about later.
    assert.equal(unchangedSince(read.stamp, now()), false, 'a racy read');
    // The same stats, had the read begun 3 s after the file's last change.
    const later = { ...read.stamp, startedNs: read.stamp.stats.ctimeNs + 3_000_000_000n };
    assert.equal(unchangedSince(later, now()), true);
    writeFileSync(file, 'let b = 2;');
    assert.equal(unchangedSince(later, now()), false, 'same size, written again: ctime moved');
    renameSync(file, dir.file('b.ts'));
    writeFileSync(file, 'let b = 2;');
    assert.equal(unchangedSince(later, now()), false, 'another file at the path');
  },
);
