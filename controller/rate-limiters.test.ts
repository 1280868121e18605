import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  ExponentialBackoffRateLimiter,
} from './rate-limiters.js';

const T = { timeout: 5000 };

void test('defaults: 1 s base doubling to a 5 min cap', T, () => {
  assert.equal(DEFAULT_BASE_DELAY_MS, 1000);
  assert.equal(DEFAULT_MAX_DELAY_MS, 300_000);
  const limiter = new ExponentialBackoffRateLimiter<string>();
  const delays = Array.from({ length: 11 }, () => limiter.when('a'));
  assert.deepEqual(
    delays,
    [1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000],
  );
  assert.equal(limiter.numRequeues('a'), 11);
});

void test('forget() resets a key to the base delay', T, () => {
  const limiter = new ExponentialBackoffRateLimiter<string>();
  limiter.when('a');
  limiter.when('a');
  limiter.when('a');
  limiter.forget('a');
  assert.equal(limiter.numRequeues('a'), 0);
  assert.equal(limiter.when('a'), 1000);
  assert.equal(limiter.numRequeues('a'), 1);
});

void test('keys back off independently', T, () => {
  const limiter = new ExponentialBackoffRateLimiter<string>();
  limiter.when('a');
  limiter.when('a');
  assert.equal(limiter.when('b'), 1000);
  assert.equal(limiter.when('a'), 4000);
  limiter.forget('b');
  assert.equal(limiter.numRequeues('a'), 3);
  assert.equal(limiter.numRequeues('b'), 0);
  assert.equal(limiter.numRequeues('never-seen'), 0);
});

void test('base and cap are configurable', T, () => {
  const limiter = new ExponentialBackoffRateLimiter<string>({ baseDelayMs: 10, maxDelayMs: 50 });
  assert.deepEqual(
    [limiter.when('a'), limiter.when('a'), limiter.when('a'), limiter.when('a')],
    [10, 20, 40, 50],
  );
  const flat = new ExponentialBackoffRateLimiter<string>({ baseDelayMs: 7, maxDelayMs: 7 });
  assert.deepEqual([flat.when('a'), flat.when('a')], [7, 7]);
});

void test('thousands of failures stay at the cap (no overflow to Infinity or NaN)', T, () => {
  const limiter = new ExponentialBackoffRateLimiter<string>();
  let last = 0;
  for (let i = 0; i < 3000; i++) last = limiter.when('a');
  assert.equal(last, 300_000);
});

void test('invalid options are rejected', T, () => {
  assert.throws(() => new ExponentialBackoffRateLimiter({ baseDelayMs: 0 }), RangeError);
  assert.throws(() => new ExponentialBackoffRateLimiter({ baseDelayMs: -1 }), RangeError);
  assert.throws(() => new ExponentialBackoffRateLimiter({ baseDelayMs: Number.NaN }), RangeError);
  assert.throws(
    () => new ExponentialBackoffRateLimiter({ baseDelayMs: 1000, maxDelayMs: 999 }),
    RangeError,
  );
  assert.throws(
    () => new ExponentialBackoffRateLimiter({ maxDelayMs: Number.POSITIVE_INFINITY }),
    RangeError,
  );
});
