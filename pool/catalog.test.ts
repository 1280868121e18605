/**
 * The catalog store (catalog.ts): written private, read back only for its own connectionId,
 * and never trusted when its file is not the user's private regular file of this version.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../testing/temp-dir.js';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { CATALOG_VERSION, CatalogStore } from './catalog.js';

const T = { timeout: 10_000 };
const LISTING = {
  tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }],
  prompts: [],
  capabilities: { tools: {}, resources: {} },
  instructions: 'be kind',
};

function stores() {
  const dir = tempDir('mcpctl-catalog-');
  const ignored: string[] = [];
  const open = () =>
    new CatalogStore({ dir: path.join(dir.path, 'c'), onIgnored: (_f, why) => ignored.push(why) });
  return { dir, ignored, open };
}

test('a catalog is written 0600 in a 0700 folder and read back by the next store', T, async () => {
  const { dir, open } = stores();
  const first = open();
  first.remember('a::1', LISTING);
  first.rememberList('a::1', 'resources/list', { resources: [{ uri: 'x://1', name: 'one' }] });
  await first.flushed();
  const file = first.fileOf('a::1') ?? '';
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
  const back = await open().get('a::1');
  assert.deepEqual(back?.tools, LISTING.tools);
  assert.equal(back?.instructions, 'be kind');
  assert.deepEqual(open().answer('a::1', 'resources/list'), undefined, 'not before it was read');
  const again = open();
  await again.get('a::1');
  assert.deepEqual(again.answer('a::1', 'resources/list'), {
    resources: [{ uri: 'x://1', name: 'one' }],
  });
  assert.equal(await open().get('a::2'), undefined, 'another connectionId knows nothing');
  dir.remove();
});

test('an unchanged listing is not written again; a paged list is not kept', T, async () => {
  const { dir, open } = stores();
  const s = open();
  const one = s.remember('a::1', LISTING);
  await s.flushed();
  const file = s.fileOf('a::1') ?? '';
  writeFileSync(file, readFileSync(file, 'utf8'), { mode: 0o600 });
  const before = statSync(file).mtimeMs;
  assert.equal(s.remember('a::1', structuredClone(LISTING)), one);
  s.rememberList('a::1', 'resources/list', { resources: [], nextCursor: 'p2' });
  await s.flushed();
  assert.equal(statSync(file).mtimeMs, before);
  assert.equal(s.answer('a::1', 'resources/list'), undefined);
  const listed = { resources: [{ uri: 'x://1', name: 'one' }] };
  s.rememberList('a::1', 'resources/list', listed);
  await s.flushed();
  writeFileSync(file, readFileSync(file, 'utf8'), { mode: 0o600 });
  const kept = statSync(file).mtimeMs;
  s.rememberList('a::1', 'resources/list', structuredClone(listed));
  await s.flushed();
  assert.equal(statSync(file).mtimeMs, kept, 'the same resources answer writes nothing');
  dir.remove();
});

test(
  'a file that is not private, not a catalog, of another version or connection, a link or a FIFO is ignored and said once',
  T,
  async () => {
    const { dir, ignored, open } = stores();
    const s = open();
    s.remember('a::1', LISTING);
    await s.flushed();
    const file = s.fileOf('a::1') ?? '';
    const good = readFileSync(file, 'utf8');
    const cases: [string, () => void, RegExp][] = [
      ['group-writable', () => chmodSync(file, 0o620), /others may read or write it/],
      ['not JSON', () => writeFileSync(file, '{', { mode: 0o600 }), /not JSON/],
      [
        'another version',
        () => writeFileSync(file, good.replace(`"version":${CATALOG_VERSION}`, '"version":99')),
        /version 99/,
      ],
      [
        'another connection',
        () => writeFileSync(file, good.replace('"a::1"', '"b::1"')),
        /another connection/,
      ],
      [
        'tools not a list',
        () => writeFileSync(file, good.replace(/"tools":\[[^\]]*\]/, '"tools":"rm -rf"')),
        /tools are not a list/,
      ],
    ];
    for (const [what, make, said] of cases) {
      writeFileSync(file, good, { mode: 0o600 });
      chmodSync(file, 0o600);
      make();
      const count = ignored.length;
      assert.equal(await open().get('a::1'), undefined, what);
      assert.equal(await open().get('a::1'), undefined, what);
      assert.equal(ignored.length, count + 2, `${what}: said by each store that looked`);
      assert.match(ignored.at(-1) ?? '', said, what);
    }
    const real = `${file}.real`;
    writeFileSync(real, good, { mode: 0o600 });
    execFileSync('rm', ['-f', file]);
    symlinkSync(real, file);
    assert.equal(await open().get('a::1'), undefined, 'a link');
    assert.match(ignored.at(-1) ?? '', /symbolic link/);
    execFileSync('rm', ['-f', file]);
    makeFifo(file);
    try {
      assert.equal(await open().get('a::1'), undefined, 'a FIFO, without blocking');
    } finally {
      releaseReaders([file]);
    }
    assert.match(ignored.at(-1) ?? '', /not a regular file/);
    // A store says each file and cause once, however often it looks.
    const once = open();
    const count = ignored.length;
    await once.get('a::1');
    await once.get('a::1');
    assert.equal(ignored.length, count + 1);
    dir.remove();
  },
);

test('a store without a folder keeps catalogs in memory only', T, async () => {
  const s = new CatalogStore({});
  s.remember('a::1', LISTING);
  await s.flushed();
  assert.equal(s.fileOf('a::1'), undefined);
  assert.deepEqual((await s.get('a::1'))?.tools, LISTING.tools);
});
