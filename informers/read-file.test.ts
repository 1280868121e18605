import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { readFileCapped } from './read-file.js';
import { makeTempDir } from './test-support.js';

test('reads, refuses over the cap, and tells missing from broken', { timeout: 5000 }, async (t) => {
  const { dir, cleanup } = await makeTempDir();
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
