import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { parsePins, serializePins, type ServerPins } from './pin-file.js';
import { PinStore, pinsFilePath } from './pin-store.js';

const DIGEST = 'a'.repeat(64);
const PINS: ServerPins = {
  pinnedAt: '2026-12-03T00:00:00.000Z',
  tools: new Map([['echo', { digest: DIGEST, definition: { name: 'echo' } }]]),
  prompts: new Map(),
};

let temp: TempDir;
let file = '';
beforeEach(() => {
  temp = tempDir('mcpctl-pins-');
  file = path.join(temp.path, 'state', 'mcpApprovals.pins.json');
});
afterEach(() => temp.remove());

describe('pins file', () => {
  it('sits beside the approvals file', () => {
    assert.equal(pinsFilePath('/h/.qwen/mcpApprovals.json'), '/h/.qwen/mcpApprovals.pins.json');
    assert.equal(pinsFilePath('/h/approvals'), '/h/approvals.pins.json');
  });

  it('round-trips any name, __proto__ included', () => {
    const content = new Map([['__proto__', new Map([['constructor::0123', PINS]])]]);
    const parsed = parsePins(serializePins(content));
    assert.ok(parsed.ok);
    assert.equal(
      parsed.content.get('__proto__')?.get('constructor::0123')?.tools.get('echo')?.digest,
      DIGEST,
    );
  });

  it('is all or nothing: one entry out of shape is a problem naming its place', () => {
    const bad = JSON.stringify({
      version: 1,
      scopes: {
        '/ws': { 'a::1': { pinnedAt: 'x', tools: { echo: { digest: 'short', definition: {} } } } },
      },
    });
    const parsed = parsePins(bad);
    assert.equal(parsed.ok, false);
    assert.match(
      parsed.ok ? '' : parsed.problem,
      /"\/ws"\."a::1"\.tools\."echo"\.digest: expected 64 hex digits/,
    );
    const other = parsePins(JSON.stringify({ version: 2, scopes: {} }));
    assert.match(other.ok ? '' : other.problem, /version: expected 1, got 2/);
    assert.equal(parsePins('not json').ok, false);
  });
});

describe('PinStore', { timeout: 30_000 }, () => {
  it('saves atomically, private to the user, and reads back after a reopen', async () => {
    const store = await PinStore.open({ path: file });
    assert.equal(store.get('/ws', 'a::1'), undefined);
    await store.save('/ws', 'a::1', (current) => current ?? PINS);
    assert.equal(store.get('/ws', 'a::1')?.tools.get('echo')?.digest, DIGEST);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const again = await PinStore.open({ path: file });
    assert.equal(again.get('/ws', 'a::1')?.pinnedAt, PINS.pinnedAt);
    assert.deepEqual(
      fs.readdirSync(path.dirname(file)).sort(),
      ['mcpApprovals.pins.json'],
      'no temporary file left',
    );
  });

  it('applies a save to what is on disk, so another process’s pins are kept', async () => {
    const one = await PinStore.open({ path: file });
    const two = await PinStore.open({ path: file });
    await one.save('/ws', 'a::1', () => PINS);
    await two.save('/ws', 'b::2', () => PINS);
    const read = await PinStore.open({ path: file });
    assert.ok(read.get('/ws', 'a::1') && read.get('/ws', 'b::2'));
  });

  it('fails closed on a corrupt file: a problem naming it and the fix; never written over', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{ "version": 1, oops');
    const store = await PinStore.open({ path: file });
    assert.match(
      store.problem ?? '',
      new RegExp(`${file.replace(/[.]/g, '\\.')} is not valid.*repair it or remove it`),
    );
    assert.equal(store.get('/ws', 'a::1'), undefined);
    await assert.rejects(
      store.save('/ws', 'a::1', () => PINS),
      /not valid/,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), '{ "version": 1, oops');
  });

  it('a symbolic link or a FIFO where the file should be is a problem, read without waiting', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const target = path.join(temp.path, 'elsewhere.json');
    fs.writeFileSync(target, serializePins(new Map()));
    fs.symlinkSync(target, file);
    const linked = await PinStore.open({ path: file });
    assert.match(linked.problem ?? '', /symbolic link/);
    await assert.rejects(linked.save('/ws', 'a::1', () => PINS));
    assert.equal(
      fs.readFileSync(target, 'utf8'),
      serializePins(new Map()),
      'nothing written through the link',
    );
    fs.unlinkSync(file);
    makeFifo(file);
    try {
      const fifo = await PinStore.open({ path: file });
      assert.match(fifo.problem ?? '', /not a regular file/);
    } finally {
      releaseReaders([file]);
    }
  });

  it('a re-read after our own save is no change; a file written by someone else is', async () => {
    const store = await PinStore.open({ path: file });
    await store.save('/ws', 'a::1', () => PINS);
    assert.equal(await store.reload(), false);
    fs.writeFileSync(file, serializePins(new Map()));
    assert.equal(await store.reload(), true);
    assert.equal(await store.reload(), false);
    fs.unlinkSync(file);
    assert.equal(await store.reload(), true, 'removed');
  });

  it('finds the pins of the same config under another connectionId of the server', async () => {
    const store = await PinStore.open({ path: file });
    const hash = 'b'.repeat(64);
    await store.save('scope:user', 'fs::1111', () => ({ ...PINS, approvalHash: hash }));
    await store.save('scope:user', 'fsx::2222', () => ({ ...PINS, approvalHash: hash }));
    assert.equal(store.sameConfig('scope:user', 'fs', hash)?.approvalHash, hash);
    assert.equal(store.sameConfig('scope:user', 'fs', 'c'.repeat(64)), undefined, 'another config');
    assert.equal(store.sameConfig('/ws', 'fs', hash), undefined, 'another scope');
    assert.equal(store.sameConfig('scope:user', 'f', hash), undefined, 'a name is matched whole');
  });

  it('a file fixed by hand is trusted again after reload', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'garbage');
    const store = await PinStore.open({ path: file });
    assert.ok(store.problem);
    fs.writeFileSync(file, serializePins(new Map([['/ws', new Map([['a::1', PINS]])]])));
    assert.equal(await store.reload(), true, 'a repaired file is a change');
    assert.equal(store.problem, undefined);
    assert.equal(store.get('/ws', 'a::1')?.tools.size, 1);
  });
});
