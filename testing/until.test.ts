import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from './until.js';

const T = { timeout: 10_000 };

test('resolves with the first value that is not undefined or false', T, async () => {
  let n = 0;
  const value = await until('n to reach 3', () => (++n >= 3 ? n : false), { intervalMs: 5 });
  assert.equal(value, 3);
});

test('a check that throws is "not yet"; the timeout names what and the last error', T, async () => {
  await assert.rejects(
    until(
      'a file',
      () => {
        throw new Error('ENOENT');
      },
      { timeoutMs: 50, intervalMs: 5 },
    ),
    /timed out after 50 ms waiting for a file; last: ENOENT/,
  );
});

test(
  'a `what` given as a function says the state at the timeout, not at the start',
  T,
  async () => {
    let seen = 'nothing yet';
    await assert.rejects(
      until(
        () => `the answer (stderr: ${seen})`,
        () => {
          seen = 'boom';
          return false;
        },
        { timeoutMs: 30, intervalMs: 5 },
      ),
      /waiting for the answer \(stderr: boom\)/,
    );
  },
);
