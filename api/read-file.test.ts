import assert from 'node:assert/strict';
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { tempDir } from '../testing/temp-dir.js';
import { readFileCapped } from './read-file.js';

test('reads, refuses over the cap, and tells missing from broken', { timeout: 5000 }, async (t) => {
  const { path: dir, remove: cleanup } = tempDir('mcpctl-read-file-');
  t.after(cleanup);
  const file = path.join(dir, 'settings.json');
  await writeFile(file, '{"a": 1}');
  assert.deepEqual(await readFileCapped(file), { kind: 'ok', text: '{"a": 1}' });
  assert.deepEqual(await readFileCapped(file, 8), { kind: 'ok', text: '{"a": 1}' });
  assert.deepEqual(await readFileCapped(file, 7), { kind: 'tooLarge', size: 8 });
  assert.deepEqual(await readFileCapped(path.join(dir, 'nope.json')), { kind: 'missing' });
  // A file where a directory should be: the path cannot exist, which is "missing".
  assert.deepEqual(await readFileCapped(path.join(file, 'x.json')), { kind: 'missing' });
  const asDir = path.join(dir, 'dir.json');
  await mkdir(asDir);
  const r = await readFileCapped(asDir);
  assert.equal(r.kind, 'error');
  assert.match(r.kind === 'error' ? r.message : '', /is a directory/);
});

test(
  'verify sees the open handle before any read, and its message refuses',
  { timeout: 5000 },
  async (t) => {
    const { path: dir, remove: cleanup } = tempDir('mcpctl-read-file-');
    t.after(cleanup);
    const file = path.join(dir, 'a.ts');
    await writeFile(file, 'let a = 1;');
    const seen: bigint[] = [];
    const ok = await readFileCapped(file, 100, (stats) => {
      seen.push(stats.size);
      return Promise.resolve(undefined);
    });
    assert.deepEqual(ok, { kind: 'ok', text: 'let a = 1;' });
    assert.deepEqual(seen, [10n]);
    const refused = await readFileCapped(file, 100, () => Promise.resolve('is not the file meant'));
    assert.deepEqual(refused, { kind: 'error', message: 'is not the file meant' });
  },
);

/** `promise`, or a failure after `ms` (the reads under test must never wait). */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

test(
  'refuses FIFOs, sockets and devices unread, and reads through symlinks',
  { timeout: 30_000 },
  async (t) => {
    const { path: dir, remove: cleanup } = tempDir('mcpctl-read-file-');
    const fifo = path.join(dir, '.mcp.json');
    makeFifo(fifo);
    t.after(() => {
      releaseReaders([fifo]);
      cleanup();
    });

    const r = await within(5000, readFileCapped(fifo), 'reading a FIFO');
    assert.equal(r.kind, 'error');
    assert.match(r.kind === 'error' ? r.message : '', /FIFO.*not a regular file/);

    const dev = await within(5000, readFileCapped('/dev/zero'), 'reading /dev/zero');
    assert.match(dev.kind === 'error' ? dev.message : '', /character device, not a regular file/);

    const sock = path.join(dir, 's.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const s = await within(5000, readFileCapped(sock), 'reading a socket');
    assert.match(s.kind === 'error' ? s.message : '', /socket, not a regular file/);

    // A symlink to a FIFO is a FIFO; a symlink to a regular file is that file.
    const linkToFifo = path.join(dir, 'link-to-fifo.json');
    await symlink(fifo, linkToFifo);
    const l = await within(5000, readFileCapped(linkToFifo), 'reading a link to a FIFO');
    assert.match(l.kind === 'error' ? l.message : '', /not a regular file/);
    const real = path.join(dir, 'real.json');
    await writeFile(real, '{}');
    const linkToFile = path.join(dir, 'link.json');
    await symlink(real, linkToFile);
    assert.deepEqual(await readFileCapped(linkToFile), { kind: 'ok', text: '{}' });
  },
);

test(
  'a FIFO swapped in after the check cannot make a read wait',
  { timeout: 60_000 },
  async (t) => {
    const { path: dir, remove: cleanup } = tempDir('mcpctl-read-file-');
    const target = path.join(dir, 'settings.json');
    const fifos: string[] = [];
    t.after(() => {
      releaseReaders([target, ...fifos]);
      cleanup();
    });
    await writeFile(target, '{}');
    let swapping = true;
    // Renames are atomic: the path is always either a regular file or a FIFO, never missing.
    const swapper = (async () => {
      for (let i = 0; swapping; i++) {
        const next = path.join(dir, `next-${i}`);
        if (i % 2 === 0) {
          makeFifo(next);
          fifos.push(next);
        } else await writeFile(next, '{}');
        await rename(next, target);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const kinds = new Set<string>();
      for (let i = 0; i < 400; i++) {
        const r = await within(5000, readFileCapped(target), `read ${i}`);
        assert.ok(
          r.kind === 'ok' || (r.kind === 'error' && /not a regular file/.test(r.message)),
          JSON.stringify(r),
        );
        kinds.add(r.kind);
      }
      assert.ok(kinds.has('error'), 'the FIFO was seen at least once');
    } finally {
      swapping = false;
      await swapper;
    }
  },
);
