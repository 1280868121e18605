import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { tempDir } from '../testing/temp-dir.js';
import { readRealFile, type RealFileRead } from './real-file.js';
import { RecentFiles } from './recent-files.js';

const T = { timeout: 5000 };

/**
 * readRealFile, counted, with each read dated 3 s after the file's last change: a file the
 * test just wrote then counts as one changed long before its read (real-file.ts's racy rule).
 */
function countedReader() {
  const reads: string[] = [];
  const read = async (file: string, maxBytes: number): Promise<RealFileRead> => {
    reads.push(file);
    const r = await readRealFile(file, maxBytes);
    if (r.kind !== 'ok') return r;
    return { ...r, stamp: { ...r.stamp, startedNs: r.stamp.stats.ctimeNs + 3_000_000_000n } };
  };
  return { reads, read };
}

describe('RecentFiles', () => {
  it('quotes an unchanged file again from what it kept: one stat, no read', T, async (t) => {
    const dir = tempDir('mcpctl-lsp-recent-');
    t.after(dir.remove);
    writeFileSync(dir.file('a.ts'), 'one');
    const { reads, read } = countedReader();
    const files = new RecentFiles(read);
    for (let i = 0; i < 3; i++) {
      const got = await files.read(dir.file('a.ts'), 100);
      assert.equal(got.kind === 'ok' ? got.text : got.kind, 'one');
    }
    assert.equal(reads.length, 1);
    assert.deepEqual(await files.read(dir.file('a.ts'), 2), { kind: 'tooLarge', size: 3 });
  });

  it('reads again whatever the stat cannot prove unchanged', T, async (t) => {
    const dir = tempDir('mcpctl-lsp-recent-');
    const fifo = dir.file('b.ts');
    t.after(() => {
      releaseReaders([fifo]);
      dir.remove();
    });
    const { reads, read } = countedReader();
    const files = new RecentFiles(read);
    writeFileSync(dir.file('a.ts'), 'one');
    await files.read(dir.file('a.ts'), 100);
    writeFileSync(dir.file('a.ts'), 'two');
    const got = await files.read(dir.file('a.ts'), 100);
    assert.equal(got.kind === 'ok' ? got.text : got.kind, 'two', 'same size, written again');
    // Racy reads (the real reader's) are never taken for proof.
    const real = new RecentFiles();
    writeFileSync(dir.file('c.ts'), 'one');
    await real.read(dir.file('c.ts'), 100);
    writeFileSync(dir.file('c.ts'), 'two');
    const again = await real.read(dir.file('c.ts'), 100);
    assert.equal(again.kind === 'ok' ? again.text : again.kind, 'two');
    // A FIFO where a kept file was is refused, never answered from what was kept.
    writeFileSync(fifo, 'kept');
    await files.read(fifo, 100);
    rmSync(fifo);
    makeFifo(fifo);
    const refused = await files.read(fifo, 100);
    assert.equal(refused.kind, 'error');
    assert.equal(reads.length, 4);
  });

  it('keeps at most 128 files, the least recently used going first', T, async (t) => {
    const dir = tempDir('mcpctl-lsp-recent-');
    t.after(dir.remove);
    const { reads, read } = countedReader();
    const files = new RecentFiles(read);
    for (let i = 0; i < 130; i++) {
      writeFileSync(dir.file(`f${i}.ts`), `${i}`);
      await files.read(dir.file(`f${i}.ts`), 100);
    }
    assert.equal(files.size, 128);
    reads.length = 0;
    await files.read(dir.file('f129.ts'), 100);
    await files.read(dir.file('f0.ts'), 100);
    assert.deepEqual(reads, [dir.file('f0.ts')], 'the newest kept, the oldest gone');
  });
});
