import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FileGrantStore, TokenFileError, defaultTokensPath } from './token-store.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';

const URL_A = 'https://a.example/mcp';

describe('FileGrantStore', () => {
  let temp: TempDir;
  let home: string;
  let file: string;
  beforeEach(() => {
    temp = tempDir('mcpctl-tokens-');
    home = temp.path;
    file = defaultTokensPath(home);
  });
  afterEach(() => temp.remove());

  it('keeps grants by server URL and client id, 0600 in a 0700 folder', async () => {
    const store = new FileGrantStore(file);
    assert.equal(await store.get(URL_A, undefined), undefined);
    await store.put(
      URL_A,
      { clientId: 'dyn', client: { client_id: 'dyn' }, tokens: { access_token: 'AT1' } },
      true,
    );
    await store.put(URL_A, { clientId: 'conf', tokens: { access_token: 'AT2' } }, false);
    assert.equal(
      (await store.get(URL_A, undefined))?.tokens?.access_token,
      'AT1',
      'the dynamic one',
    );
    assert.equal((await store.get(URL_A, 'conf'))?.tokens?.access_token, 'AT2');
    assert.equal(await store.get('https://b.example/mcp', 'conf'), undefined);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);

    assert.equal(await store.remove(URL_A, undefined), true);
    assert.equal(await store.get(URL_A, undefined), undefined);
    assert.equal(await store.remove(URL_A, undefined), false);
    assert.equal(readFileSync(file, 'utf8').includes('AT1'), false, 'gone from the file');
  });

  it('a new dynamic registration replaces the previous one', async () => {
    const store = new FileGrantStore(file);
    await store.put(URL_A, { clientId: 'old', tokens: { access_token: 'OLD-TOKEN' } }, true);
    await store.put(URL_A, { clientId: 'new' }, true);
    assert.equal((await store.get(URL_A, undefined))?.clientId, 'new');
    assert.equal(await store.get(URL_A, 'old'), undefined);
    assert.equal(readFileSync(file, 'utf8').includes('OLD-TOKEN'), false);
  });

  it('narrows an open folder to 0700', async () => {
    mkdirSync(path.dirname(file), { mode: 0o755 });
    await new FileGrantStore(file).put(URL_A, { clientId: 'c' }, false);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
  });

  it('never reads or writes through a symbolic link', async () => {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const target = path.join(home, 'elsewhere.json');
    writeFileSync(target, JSON.stringify({ version: 1, servers: {} }));
    symlinkSync(target, file);
    const store = new FileGrantStore(file);
    await assert.rejects(store.get(URL_A, 'c'), TokenFileError);
    await assert.rejects(
      store.put(URL_A, { clientId: 'c', tokens: { access_token: 'X' } }, false),
      TokenFileError,
    );
    assert.equal(readFileSync(target, 'utf8').includes('access_token'), false);
  });

  it('reads a corrupt file as empty, and its errors quote nothing from it', async () => {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, '{"servers": {"u": SECRET-TOKEN', { mode: 0o600 });
    const store = new FileGrantStore(file);
    assert.equal(await store.get('u', undefined), undefined);
    await store.put(URL_A, { clientId: 'c' }, false);
    assert.ok((await store.get(URL_A, 'c')) !== undefined);
  });
});
