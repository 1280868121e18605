import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DelayingQueue, type Clock } from './delaying-queue.js';

const T = { timeout: 5000 };
const FAKE = { apis: ['setTimeout', 'Date'] } as const;

/** A hand-driven clock that also counts live timers, to prove they are cleared. */
class CountingClock implements Clock {
  time = 0;
  readonly timers = new Map<number, { at: number; callback: () => void }>();
  readonly requested: number[] = [];
  private nextId = 0;
  now(): number {
    return this.time;
  }
  setTimer(callback: () => void, ms: number): () => void {
    const id = this.nextId++;
    this.requested.push(ms);
    this.timers.set(id, { at: this.time + ms, callback });
    return () => this.timers.delete(id);
  }
  advance(ms: number): void {
    this.time += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at <= this.time) {
        this.timers.delete(id);
        timer.callback();
      }
    }
  }
}

void test('addAfter() adds the key once the delay has passed', T, (t) => {
  t.mock.timers.enable(FAKE);
  const q = new DelayingQueue<string>();
  q.addAfter('a', 1000);
  assert.equal(q.len(), 0);
  assert.equal(q.delayedLen(), 1);
  t.mock.timers.tick(999);
  assert.equal(q.len(), 0);
  t.mock.timers.tick(1);
  assert.equal(q.len(), 1);
  assert.equal(q.delayedLen(), 0);
  q.shutdown();
});

void test('addAfter(): a later time does not postpone an earlier one', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const q = new DelayingQueue<string>();
  q.addAfter('a', 1000);
  q.addAfter('a', 5000);
  assert.equal(q.delayedLen(), 1);
  t.mock.timers.tick(1000);
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'a');
  q.done('a');
  t.mock.timers.tick(10_000);
  assert.equal(q.len(), 0, 'the 5 s add was merged into the 1 s one');
  q.shutdown();
});

void test('addAfter(): an earlier time moves a waiting key forward, once', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const q = new DelayingQueue<string>();
  q.addAfter('b', 5000);
  t.mock.timers.tick(1000);
  q.addAfter('b', 500); // due at 1500, before 5000
  t.mock.timers.tick(499);
  assert.equal(q.len(), 0);
  t.mock.timers.tick(1);
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'b');
  q.done('b');
  t.mock.timers.tick(10_000);
  assert.equal(q.len(), 0, 'the original 5 s timer was cancelled');
  q.shutdown();
});

void test('addAfter() with ms <= 0 adds at once; NaN is rejected', T, () => {
  const q = new DelayingQueue<string>({ clock: new CountingClock() });
  q.addAfter('a', 0);
  q.addAfter('b', -5);
  assert.equal(q.len(), 2);
  assert.equal(q.delayedLen(), 0);
  assert.throws(() => q.addAfter('c', Number.NaN), RangeError);
  q.shutdown();
});

void test(
  'a delayed key that comes due while processing runs once more after done()',
  T,
  async (t) => {
    t.mock.timers.enable(FAKE);
    const q = new DelayingQueue<string>();
    q.add('a');
    assert.equal(await q.get(), 'a');
    q.addAfter('a', 100);
    t.mock.timers.tick(100);
    assert.equal(q.len(), 0);
    q.done('a');
    assert.equal(q.len(), 1);
    q.shutdown();
  },
);

void test('keys with different delays come out in time order', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const q = new DelayingQueue<string>();
  q.addAfter('late', 300);
  q.addAfter('early', 100);
  q.addAfter('middle', 200);
  t.mock.timers.tick(300);
  assert.deepEqual([await q.get(), await q.get(), await q.get()], ['early', 'middle', 'late']);
  q.shutdown();
});

void test('shutdown() clears every pending timer and ignores later addAfter()', T, () => {
  const clock = new CountingClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 1000);
  q.addAfter('b', 2000);
  q.addAfter('c', 3000);
  assert.equal(clock.timers.size, 3);
  q.shutdown();
  assert.equal(clock.timers.size, 0);
  assert.equal(q.delayedLen(), 0);
  q.addAfter('d', 1000);
  q.addAfter('e', 0);
  assert.equal(clock.timers.size, 0);
  clock.advance(10_000);
  assert.equal(q.len(), 0);
});

void test('shutdownWithDrain() clears timers too', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const q = new DelayingQueue<string>();
  q.addAfter('a', 1000);
  await q.shutdownWithDrain();
  assert.equal(q.delayedLen(), 0);
  t.mock.timers.tick(5000);
  assert.equal(q.len(), 0);
});

void test('moving a key forward cancels its old timer', T, () => {
  const clock = new CountingClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 5000);
  q.addAfter('a', 1000);
  q.addAfter('a', 3000);
  assert.equal(clock.timers.size, 1);
  q.shutdown();
});

void test('delays beyond what setTimeout can hold are capped, not fired at once', T, () => {
  const clock = new CountingClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', Number.POSITIVE_INFINITY);
  q.addAfter('b', 2 ** 40);
  assert.deepEqual(clock.requested, [2 ** 31 - 1, 2 ** 31 - 1]);
  clock.advance(1);
  assert.equal(q.len(), 0);
  q.shutdown();
});

void test('the default clock follows mock.timers enabled after the queue was made', T, (t) => {
  const q = new DelayingQueue<string>();
  t.mock.timers.enable(FAKE);
  q.addAfter('a', 60_000);
  t.mock.timers.tick(59_999);
  assert.equal(q.len(), 0);
  t.mock.timers.tick(1);
  assert.equal(q.len(), 1);
  q.shutdown();
});
