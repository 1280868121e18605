import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { tempDir, type TempDir } from '../../testing/temp-dir.js';
import {
  TokenFileError,
  bearerOf,
  ensureToken,
  readToken,
  tokenMatches,
  tokenPath,
} from './token.js';

describe('http token file', () => {
  let dir: TempDir;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = tokenPath(dir.path);
  });
  afterEach(() => dir.remove());

  it('is made at first use: 0600 in a 0700 directory, then read back the same', () => {
    const token = ensureToken(file);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.equal(ensureToken(file), token);
    assert.equal(readFileSync(file, 'utf8').trim(), token);
  });

  it('refuses a symbolic link in its place, dangling or not, and changes nothing', () => {
    mkdirSync(path.dirname(file), { mode: 0o700 });
    const target = dir.file('elsewhere');
    symlinkSync(target, file);
    assert.throws(
      () => ensureToken(file),
      (err: Error) => {
        assert.ok(err instanceof TokenFileError);
        assert.match(err.message, /symbolic link/);
        assert.ok(err.message.includes(file));
        return true;
      },
    );
    assert.ok(lstatSync(file).isSymbolicLink(), 'the link is left as it was');
    writeFileSync(target, 'a'.repeat(43), { mode: 0o600 });
    assert.throws(() => readToken(file), /symbolic link/);
  });

  it('refuses a file others may read or write, saying the mode and the fix', () => {
    const token = ensureToken(file);
    for (const mode of [0o644, 0o640, 0o606, 0o660]) {
      chmodSync(file, mode);
      assert.throws(
        () => ensureToken(file),
        (err: Error) => {
          assert.match(err.message, new RegExp(`mode ${mode.toString(8)}`));
          assert.match(err.message, /chmod 600/);
          assert.ok(!err.message.includes(token), 'the token is never in a message');
          return true;
        },
      );
    }
    chmodSync(file, 0o600);
    assert.equal(ensureToken(file), token);
  });

  it('refuses a file without a token, and a directory others can write', () => {
    mkdirSync(path.dirname(file), { mode: 0o700 });
    writeFileSync(file, 'short\n', { mode: 0o600 });
    assert.throws(() => ensureToken(file), /holds no token/);
    writeFileSync(file, 'x'.repeat(5000), { mode: 0o600 });
    assert.throws(() => ensureToken(file), /holds no token/);
    chmodSync(path.dirname(file), 0o777);
    assert.throws(() => ensureToken(file), /writable by everyone.*chmod 700/);
    chmodSync(path.dirname(file), 0o700);
  });

  it('compares tokens whole, whatever their lengths', () => {
    const token = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
    assert.equal(tokenMatches(token, token), true);
    assert.equal(tokenMatches(token.slice(0, -1), token), false);
    assert.equal(tokenMatches(`${token}x`, token), false);
    assert.equal(tokenMatches('', token), false);
  });

  it('reads a bearer token from an Authorization header', () => {
    assert.equal(bearerOf('Bearer abc'), 'abc');
    assert.equal(bearerOf('bearer   abc'), 'abc');
    assert.equal(bearerOf('Basic abc'), undefined);
    assert.equal(bearerOf('Bearer'), undefined);
    assert.equal(bearerOf('Bearer a b'), undefined);
    assert.equal(bearerOf(undefined), undefined);
  });
});
