import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { tempDir, type TempDir } from '../../testing/temp-dir.js';
import { claimLock, claimLockPath } from './claim-lock.js';

describe('claimLock', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = tempDir('mcpctl-claim-');
  });
  afterEach(() => dir.remove());

  it('one holder at a time: the second gets it when the first gives it back', async () => {
    const socket = dir.file('d.sock');
    const order: string[] = [];
    const first = await claimLock(socket);
    order.push('first');
    const second = claimLock(socket).then((release) => {
      order.push('second');
      return release;
    });
    // The second waits while the first holds it (no timing: it cannot resolve before this).
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['first']);
    first();
    (await second)();
    assert.deepEqual(order, ['first', 'second']);
    assert.ok(!existsSync(claimLockPath(socket)), 'given back');
  });

  it('a lock whose holder died is taken over', async () => {
    const socket = dir.file('d.sock');
    mkdirSync(claimLockPath(socket));
    // A pid that is surely not running (beyond the kernel's default pid_max of 2^22).
    writeFileSync(path.join(claimLockPath(socket), 'pid'), '99999999\n');
    const release = await claimLock(socket, 5000);
    release();
    assert.ok(!existsSync(claimLockPath(socket)));
  });
});
