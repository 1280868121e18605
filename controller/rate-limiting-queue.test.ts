import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

const T = { timeout: 5000 };
const FAKE = { apis: ['setTimeout', 'Date'] } as const;

void test('addRateLimited() re-adds after a doubling delay and returns it', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const q = new RateLimitingQueue<string>();

  assert.equal(q.addRateLimited('a'), 1000);
  assert.equal(q.numRequeues('a'), 1);
  t.mock.timers.tick(999);
  assert.equal(q.len(), 0);
  t.mock.timers.tick(1);
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'a');

  assert.equal(q.addRateLimited('a'), 2000);
  assert.equal(q.numRequeues('a'), 2);
  q.done('a');
  t.mock.timers.tick(1999);
  assert.equal(q.len(), 0);
  t.mock.timers.tick(1);
  assert.equal(q.len(), 1);
  q.shutdown();
});

void test('forget() resets the backoff but does not cancel a pending delayed add', T, (t) => {
  t.mock.timers.enable(FAKE);
  const q = new RateLimitingQueue<string>();
  q.addRateLimited('a');
  q.addRateLimited('a');
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
  assert.equal(q.delayedLen(), 1);
  t.mock.timers.tick(1000);
  assert.equal(q.len(), 1);
  assert.equal(q.addRateLimited('b'), 1000);
  q.shutdown();
});

void test('an injected rate limiter decides the delay', T, (t) => {
  t.mock.timers.enable(FAKE);
  const calls: string[] = [];
  const limiter: RateLimiter<string> = {
    when: (key) => {
      calls.push(`when:${key}`);
      return 7;
    },
    forget: (key) => void calls.push(`forget:${key}`),
    numRequeues: () => 42,
  };
  const q = new RateLimitingQueue<string>({ rateLimiter: limiter });
  assert.equal(q.rateLimiter, limiter);
  assert.equal(q.addRateLimited('x'), 7);
  q.forget('x');
  assert.equal(q.numRequeues('x'), 42);
  assert.deepEqual(calls, ['when:x', 'forget:x']);
  t.mock.timers.tick(6);
  assert.equal(q.len(), 0);
  t.mock.timers.tick(1);
  assert.equal(q.len(), 1);
  q.shutdown();
});

void test('addRateLimited() after shutdown adds nothing', T, (t) => {
  t.mock.timers.enable(FAKE);
  const q = new RateLimitingQueue<string>();
  q.shutdown();
  q.addRateLimited('a');
  assert.equal(q.delayedLen(), 0);
  t.mock.timers.tick(10_000);
  assert.equal(q.len(), 0);
});
