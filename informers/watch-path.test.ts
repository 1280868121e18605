import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { watchPath } from './watch-path.js';

test(
  'roots at the nearest existing ancestor, promotes and demotes',
  { timeout: 10000 },
  async (t) => {
    const { path: dir, remove: cleanup } = tempDir('mcpctl-informers-');
    const file = path.join(dir, 'a', 'b', 'c', 'settings.json');
    let pokes = 0;
    const w = watchPath(file, () => pokes++);
    t.after(async () => {
      await w.close();
      cleanup();
    });
    await w.revalidate();
    assert.equal(w.root(), dir);

    await mkdir(path.dirname(file), { recursive: true });
    await until('a poke for the new directories', () => pokes > 0);
    await w.revalidate();
    assert.equal(w.root(), path.join(dir, 'a', 'b'), "promoted to the file's grandparent");

    const before = pokes;
    await writeFile(file, '{}');
    await until('a poke for the file', () => pokes > before);

    const beforeRm = pokes;
    await rm(path.join(dir, 'a'), { recursive: true });
    await until('a poke for the deletion', () => pokes > beforeRm);
    await w.revalidate();
    assert.equal(w.root(), dir, 'demoted after its root was deleted');

    const beforeRecreate = pokes;
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{}');
    await until('a poke after re-creation', () => pokes > beforeRecreate);
  },
);

test('the deletion of the watched root itself is noticed', { timeout: 10000 }, async (t) => {
  const { path: dir, remove: cleanup } = tempDir('mcpctl-informers-');
  const ws = path.join(dir, 'ws');
  await mkdir(ws);
  // `.qwen` does not exist: nothing of the chain lives below the root `ws`.
  const file = path.join(ws, '.qwen', 'settings.json');
  let pokes = 0;
  const w = watchPath(file, () => pokes++);
  t.after(async () => {
    await w.close();
    cleanup();
  });
  await w.revalidate();
  assert.equal(w.root(), ws);
  await rm(ws, { recursive: true });
  await until('a poke for the deleted root', () => pokes > 0);
  await w.revalidate();
  assert.equal(w.root(), dir);
  const before = pokes;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '{}');
  await until('a poke after the root came back', () => pokes > before);
});

test('no poke after close', { timeout: 10000 }, async (t) => {
  const { path: dir, remove: cleanup } = tempDir('mcpctl-informers-');
  t.after(cleanup);
  const file = path.join(dir, 'settings.json');
  let pokes = 0;
  const w = watchPath(file, () => pokes++);
  await w.revalidate();
  await w.close();
  await writeFile(file, '{}');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(pokes, 0);
});
