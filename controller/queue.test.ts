import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkQueue } from './queue.js';

const T = { timeout: 5000 };

/** Lets every pending promise callback run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `p` has settled after pending callbacks ran. */
async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await flush();
  return settled;
}

void test('add() of a key already queued does nothing and keeps its place', T, async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('b');
  q.add('a');
  q.add('a');
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  assert.equal(q.len(), 0);
});

void test('FIFO across keys, and waiting getters are served in call order', T, async () => {
  const q = new WorkQueue<string>();
  for (const k of ['c', 'a', 'b']) q.add(k);
  assert.deepEqual([await q.get(), await q.get(), await q.get()], ['c', 'a', 'b']);

  const first = q.get();
  const second = q.get();
  q.add('x');
  q.add('y');
  assert.equal(await first, 'x');
  assert.equal(await second, 'y');
});

void test('get() waits for an add', T, async () => {
  const q = new WorkQueue<string>();
  const pending = q.get();
  assert.equal(await isSettled(pending), false);
  q.add('a');
  assert.equal(await pending, 'a');
  assert.equal(q.processingLen(), 1);
});

void test('a key added while processing runs exactly once more after done()', T, async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  const key = await q.get();
  assert.equal(key, 'a');
  for (let i = 0; i < 5; i++) q.add('a');
  assert.equal(q.len(), 0, 'a dirty key being processed is not queued');

  q.done('a');
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'a');
  q.done('a');
  assert.equal(q.len(), 0);
  assert.equal(await isSettled(q.get()), false, 'nothing left to hand out');
});

void test('the re-queued dirty key goes to the back of the line', T, async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  await q.get();
  q.add('b');
  q.add('a');
  q.add('c');
  q.done('a');
  assert.deepEqual([await q.get(), await q.get(), await q.get()], ['b', 'c', 'a']);
});

void test('one key is never handed to two getters at once', T, async () => {
  const q = new WorkQueue<string>();
  const first = q.get();
  const second = q.get();
  q.add('a');
  assert.equal(await first, 'a');
  q.add('a');
  assert.equal(await isSettled(second), false, 'a is being processed');
  q.add('b');
  assert.equal(await second, 'b');

  const third = q.get();
  assert.equal(await isSettled(third), false);
  q.done('a');
  assert.equal(await third, 'a');
});

void test('done() of a key not being processed is ignored', T, async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.done('a');
  q.done('zzz');
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'a');
  q.done('a');
  q.done('a');
  assert.equal(q.len(), 0);
  assert.equal(q.processingLen(), 0);
});

void test(
  'shutdown(): waiting and later get() resolve undefined, adds ignored, queue dropped',
  T,
  async () => {
    const q = new WorkQueue<string>();
    q.add('p');
    assert.equal(await q.get(), 'p');
    const waiting = q.get();
    q.add('x');
    q.add('y');
    q.add('p'); // dirty while processing

    assert.equal(await waiting, 'x');
    const waiting2 = q.get();
    assert.equal(await waiting2, 'y');
    const waiting3 = q.get();
    q.shutdown();
    assert.equal(q.isShuttingDown(), true);
    assert.equal(await waiting3, undefined);

    q.add('z');
    assert.equal(q.len(), 0);
    assert.equal(await q.get(), undefined);
    q.done('p');
    assert.equal(q.len(), 0, 'a dirty key is not re-queued after shutdown');
    q.shutdown(); // idempotent
  },
);

void test('shutdown() drops keys that were still queued', T, async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('b');
  q.shutdown();
  assert.equal(q.len(), 0);
  assert.equal(await q.get(), undefined);
});

void test('shutdownWithDrain() resolves only once every handed-out key is done()', T, async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('b');
  q.add('c');
  await q.get();
  await q.get();
  const drained = q.shutdownWithDrain();
  assert.equal(q.isShuttingDown(), true);
  assert.equal(q.len(), 0, 'c was dropped');
  assert.equal(await isSettled(drained), false);
  q.add('d');
  q.done('a');
  assert.equal(await isSettled(drained), false, 'b is still processing');
  q.done('b');
  await drained;
  assert.equal(q.processingLen(), 0);
});

void test('shutdownWithDrain() with nothing processing resolves at once', T, async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  await q.shutdownWithDrain();
  assert.equal(q.len(), 0);
});

void test(
  'whenIdle() waits for queued and processing keys, including the coalesced rerun',
  T,
  async () => {
    const q = new WorkQueue<string>();
    await q.whenIdle(); // idle now: resolves at once

    q.add('a');
    const idle = q.whenIdle();
    assert.equal(await isSettled(idle), false, 'a is queued');
    await q.get();
    q.add('a');
    assert.equal(await isSettled(idle), false, 'a is processing');
    q.done('a');
    assert.equal(await isSettled(idle), false, 'a was dirty and is queued again');
    await q.get();
    q.done('a');
    assert.equal(await isSettled(idle), true);
  },
);

void test('numeric keys dedupe by value', T, async () => {
  const q = new WorkQueue<number>();
  q.add(1);
  q.add(1);
  q.add(2);
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), 1);
});
