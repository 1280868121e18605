import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isAlive } from './processes.js';
import { until } from './until.js';

const T = { timeout: 10_000 };

test('this process is alive; a pid that never was is not', T, () => {
  assert.equal(isAlive(process.pid), true);
  assert.equal(isAlive(2 ** 22 + 1), false); // Above Linux's largest pid.
});

test('a child that exited is not alive before it is reaped, nor after', T, async () => {
  // A shell whose child exits at once and is never waited for: a zombie for as long as the
  // shell sleeps.
  const shell = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const zombie = await new Promise<number>((resolve) =>
      shell.stdout.once('data', (c: Buffer) => resolve(Number(c.toString().trim()))),
    );
    await until('the child to exit', () => !isAlive(zombie), { timeoutMs: 5000 });
    // Not reaped: its /proc entry is still there, as a zombie.
    assert.match(readFileSync(`/proc/${zombie}/stat`, 'utf8'), /\) Z /);
    assert.equal(isAlive(shell.pid!), true, 'its parent still runs');
  } finally {
    shell.kill('SIGKILL');
  }
  await until('the shell to end', () => !isAlive(shell.pid!), { timeoutMs: 5000 });
});
