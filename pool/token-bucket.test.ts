import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TokenBucket } from './token-bucket.js';

test('a token bucket gives its burst, then its rate, and says how long to wait', () => {
  let t = 1000;
  const b = new TokenBucket(10, 3, () => t);
  assert.deepEqual([b.take(), b.take(), b.take(), b.take()], [true, true, true, false]);
  assert.equal(b.msUntilToken(), 100);
  t += 50;
  assert.equal(b.take(), false, 'half a token is no token');
  assert.equal(b.msUntilToken(), 50);
  t += 50;
  assert.equal(b.msUntilToken(), 0);
  assert.equal(b.take(), true);
  t += 60_000;
  assert.deepEqual([b.take(), b.take(), b.take(), b.take()], [true, true, true, false], 'capped');
  t -= 5000;
  assert.equal(b.take(), false, 'a clock that steps back adds nothing');
  assert.throws(() => new TokenBucket(0, 1), RangeError);
});

test('spend takes what was used even past zero; the debt is repaid before the next token', () => {
  let t = 0;
  const b = new TokenBucket(1000, 100, () => t);
  b.spend(60);
  assert.equal(b.msUntilToken(), 0, '40 left');
  b.spend(140);
  assert.equal(b.msUntilToken(), 101, '100 owed, then one more token');
  t += 101;
  assert.equal(b.take(), true);
  assert.equal(b.take(), false);
});
