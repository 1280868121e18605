import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Reconciler, Request, Result } from '../reconcilers/reconcile.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { DEFAULT_CONCURRENCY, Workers, type ReconcileFailure } from './workers.js';

const T = { timeout: 10_000 };
const FAKE = { apis: ['setTimeout', 'Date'] } as const;

/** Lets every pending promise callback run (setImmediate is never faked here). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await flush();
  return settled;
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A reconciler whose every call waits on a gate the test opens, recording order,
 * concurrency overall and per key.
 */
class GatedReconciler implements Reconciler {
  readonly calls: Request[] = [];
  readonly gates: Deferred[] = [];
  readonly perKey = new Map<Request, number>();
  running = 0;
  maxRunning = 0;
  maxPerKey = 0;

  async reconcile(req: Request): Promise<void> {
    this.calls.push(req);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    const mine = (this.perKey.get(req) ?? 0) + 1;
    this.perKey.set(req, mine);
    this.maxPerKey = Math.max(this.maxPerKey, mine);
    const gate = deferred();
    this.gates.push(gate);
    await gate.promise;
    this.perKey.set(req, (this.perKey.get(req) ?? 1) - 1);
    this.running--;
  }

  /** Opens every gate waiting now. */
  openAll(): void {
    for (const gate of this.gates.splice(0)) gate.resolve();
  }
}

/** A reconciler that replays scripted outcomes, one per call. */
function scripted(outcomes: (Result | Error | undefined)[]): Reconciler & { calls: number } {
  const r = {
    calls: 0,
    reconcile(): Promise<Result | void> {
      const outcome = outcomes[r.calls++];
      return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
    },
  };
  return r;
}

void test('success runs once and forgets earlier failures', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const failures: ReconcileFailure<Request>[] = [];
  const boom1 = new Error('boom 1');
  const reconciler = scripted([boom1, new Error('boom 2'), undefined]);
  const workers = new Workers({ reconciler, onError: (f) => failures.push(f) });
  workers.start();

  workers.queue.add('a');
  await flush();
  assert.equal(reconciler.calls, 1);
  assert.equal(workers.queue.numRequeues('a'), 1);
  assert.equal(failures.length, 1);
  assert.equal(failures[0].key, 'a');
  assert.equal(failures[0].error, boom1);
  assert.equal(failures[0].retryAfterMs, 1000);
  assert.equal(failures[0].failures, 1);

  t.mock.timers.tick(999);
  await flush();
  assert.equal(reconciler.calls, 1, 'not retried before the backoff');
  t.mock.timers.tick(1);
  await flush();
  assert.equal(reconciler.calls, 2);
  assert.equal(failures[1].retryAfterMs, 2000, 'backoff doubled');
  assert.equal(failures[1].failures, 2);

  t.mock.timers.tick(1999);
  await flush();
  assert.equal(reconciler.calls, 2);
  t.mock.timers.tick(1);
  await flush();
  assert.equal(reconciler.calls, 3);
  assert.equal(workers.queue.numRequeues('a'), 0, 'success forgot the failures');
  assert.equal(failures.length, 2);

  t.mock.timers.tick(600_000);
  await flush();
  assert.equal(reconciler.calls, 3, 'a success is not requeued');
  await workers.stop();
});

void test('requeueAfter is honoured and forgets the backoff', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const reconciler = scripted([new Error('first'), { requeueAfter: 5000 }, {}, undefined]);
  const workers = new Workers({ reconciler });
  workers.start();
  workers.queue.add('a');
  await flush();
  assert.equal(workers.queue.numRequeues('a'), 1);

  t.mock.timers.tick(1000);
  await flush();
  assert.equal(reconciler.calls, 2);
  assert.equal(workers.queue.numRequeues('a'), 0);

  t.mock.timers.tick(4999);
  await flush();
  assert.equal(reconciler.calls, 2);
  t.mock.timers.tick(1);
  await flush();
  assert.equal(reconciler.calls, 3, 'requeued after 5 s');

  t.mock.timers.tick(600_000);
  await flush();
  assert.equal(reconciler.calls, 3, '{} means done');
  await workers.stop();
});

void test('requeueAfter of 0, negative or NaN does not requeue', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const reconciler = scripted([
    { requeueAfter: 0 },
    { requeueAfter: -1 },
    { requeueAfter: Number.NaN },
  ]);
  const workers = new Workers({ reconciler });
  workers.start();
  for (const key of ['a', 'b', 'c']) workers.queue.add(key);
  await workers.whenIdle();
  t.mock.timers.tick(600_000);
  await flush();
  assert.equal(reconciler.calls, 3);
  assert.equal(workers.queue.delayedLen(), 0);
  await workers.stop();
});

void test(
  'never two reconciles of one key at once; adds during a run coalesce into one',
  T,
  async () => {
    const reconciler = new GatedReconciler();
    const workers = new Workers({ reconciler, concurrency: 4 });
    workers.start();

    workers.queue.add('a');
    await flush();
    assert.deepEqual(reconciler.calls, ['a']);
    for (let i = 0; i < 50; i++) {
      workers.queue.add('a');
      if (i % 10 === 0) workers.queue.add(`k${i}`);
      await flush();
    }
    assert.equal(reconciler.perKey.get('a'), 1, 'the slow a is still the only a running');
    reconciler.openAll();
    await flush();
    assert.equal(reconciler.calls.filter((k) => k === 'a').length, 2, 'exactly one more pass');
    assert.equal(reconciler.perKey.get('a'), 1);
    reconciler.openAll();

    const idle = workers.whenIdle();
    while (!(await isSettled(idle))) reconciler.openAll();
    assert.equal(reconciler.maxPerKey, 1);
    assert.equal(reconciler.calls.filter((k) => k === 'a').length, 2);
    assert.equal(reconciler.calls.length, 2 + 5);
    await workers.stop();
  },
);

void test('p-queue bounds concurrency to N', T, async () => {
  const reconciler = new GatedReconciler();
  const workers = new Workers({ reconciler, concurrency: 3 });
  workers.start();
  for (let i = 0; i < 20; i++) workers.queue.add(`k${i}`);
  await flush();
  assert.equal(reconciler.running, 3);
  assert.equal(workers.running, 3);
  assert.equal(workers.queue.len(), 17, 'waiting keys stay in the work queue');

  // Finish one at a time: a freed slot is refilled, never overfilled.
  while (reconciler.gates.length > 0) {
    reconciler.gates.shift()!.resolve();
    await flush();
    assert.ok(reconciler.running <= 3);
  }
  await workers.whenIdle();
  assert.equal(reconciler.maxRunning, 3);
  assert.equal(reconciler.calls.length, 20);
  assert.equal(new Set(reconciler.calls).size, 20);
  await workers.stop();
});

void test('default concurrency is 4', T, async () => {
  assert.equal(DEFAULT_CONCURRENCY, 4);
  const reconciler = new GatedReconciler();
  const workers = new Workers({ reconciler });
  assert.equal(workers.concurrency, 4);
  workers.start();
  for (let i = 0; i < 10; i++) workers.queue.add(`k${i}`);
  await flush();
  assert.equal(reconciler.running, 4);
  const idle = workers.whenIdle();
  while (!(await isSettled(idle))) reconciler.openAll();
  assert.equal(reconciler.maxRunning, 4);
  assert.equal(reconciler.calls.length, 10);
  await workers.stop();
});

void test('keys are reconciled FIFO; a coalesced rerun goes to the back', T, async () => {
  const reconciler = new GatedReconciler();
  const workers = new Workers({ reconciler, concurrency: 1 });
  workers.start();
  workers.queue.add('a');
  await flush();
  for (const key of ['b', 'a', 'c']) workers.queue.add(key);
  const idle = workers.whenIdle();
  while (!(await isSettled(idle))) reconciler.openAll();
  assert.deepEqual(reconciler.calls, ['a', 'b', 'c', 'a']);
  await workers.stop();
});

void test('whenIdle() does not wait for a future backoff retry', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const reconciler = scripted([new Error('down'), undefined]);
  const workers = new Workers({ reconciler });
  await workers.whenIdle(); // nothing queued: at once

  workers.start();
  workers.queue.add('a');
  await workers.whenIdle();
  assert.equal(reconciler.calls, 1);
  assert.equal(workers.queue.delayedLen(), 1, 'the retry is still waiting');

  t.mock.timers.tick(1000);
  assert.equal(workers.queue.delayedLen(), 0);
  assert.equal(workers.queue.processingLen(), 1, 'the retry was handed to the waiting worker');
  await workers.whenIdle();
  assert.equal(reconciler.calls, 2);
  await workers.stop();
});

void test('whenIdle() before start() waits for start()', T, async () => {
  const reconciler = scripted([undefined]);
  const workers = new Workers({ reconciler });
  workers.queue.add('a');
  const idle = workers.whenIdle();
  assert.equal(await isSettled(idle), false);
  workers.start();
  await idle;
  assert.equal(reconciler.calls, 1);
  await workers.stop();
});

void test(
  'stop() waits for running reconciles, drops queued keys and cancels retries',
  T,
  async (t) => {
    t.mock.timers.enable(FAKE);
    const calls: Request[] = [];
    const gate = deferred();
    const reconciler: Reconciler = {
      async reconcile(req) {
        calls.push(req);
        if (req === 'fail') throw new Error('down');
        if (req.startsWith('slow')) await gate.promise;
      },
    };
    const workers = new Workers({ reconciler, concurrency: 2 });
    workers.start();
    workers.queue.add('fail');
    await flush();
    assert.equal(workers.queue.delayedLen(), 1, 'fail waits for its retry');
    workers.queue.add('slow-1');
    workers.queue.add('slow-2');
    workers.queue.add('queued');
    workers.queue.add('slow-1'); // dirty while running
    await flush();
    assert.deepEqual(calls, ['fail', 'slow-1', 'slow-2']);
    assert.equal(workers.running, 2);
    assert.equal(workers.queue.len(), 1);

    const stopped = workers.stop();
    assert.equal(workers.stop(), stopped, 'stop() is idempotent');
    assert.equal(workers.queue.isShuttingDown(), true);
    assert.equal(workers.queue.len(), 0, 'queued keys are dropped');
    assert.equal(workers.queue.delayedLen(), 0, 'retries are cancelled');
    assert.equal(await isSettled(stopped), false, 'slow reconciles are still running');
    workers.queue.add('late');
    gate.resolve();
    await stopped;
    assert.equal(workers.running, 0);
    assert.equal(workers.queue.processingLen(), 0);

    t.mock.timers.tick(600_000);
    await flush();
    assert.deepEqual(calls, ['fail', 'slow-1', 'slow-2']);
    assert.throws(() => workers.start(), /already started or stopped/);
  },
);

void test('stop() before start() resolves and start() then throws', T, async () => {
  const workers = new Workers({ reconciler: scripted([]) });
  await workers.stop();
  assert.throws(() => workers.start());
});

void test('start() twice throws', T, async () => {
  const workers = new Workers({ reconciler: scripted([]) });
  workers.start();
  assert.throws(() => workers.start(), /already started/);
  await workers.stop();
});

void test('a throwing onError does not stop the retry or wedge the key', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const reconciler = scripted([new Error('down'), undefined]);
  const workers = new Workers({
    reconciler,
    onError: () => {
      throw new Error('logger broke');
    },
  });
  workers.start();
  workers.queue.add('a');
  await workers.whenIdle();
  assert.equal(workers.queue.processingLen(), 0);
  t.mock.timers.tick(1000);
  await workers.whenIdle();
  assert.equal(reconciler.calls, 2);
  await workers.stop();
});

void test('a synchronous throw from reconcile is treated as an error', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const errors: unknown[] = [];
  const reconciler: Reconciler = {
    reconcile() {
      throw new Error('sync');
    },
  };
  const workers = new Workers({ reconciler, onError: (f) => errors.push(f.error) });
  workers.start();
  workers.queue.add('a');
  await workers.whenIdle();
  assert.equal(errors.length, 1);
  assert.equal(workers.queue.numRequeues('a'), 1);
  await workers.stop();
});

void test('an injected queue and limiter are used', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const queue = new RateLimitingQueue<string>({
    rateLimiter: { when: () => 50, forget: () => {}, numRequeues: () => 0 },
  });
  const reconciler = scripted([new Error('x'), undefined]);
  const retries: number[] = [];
  const workers = new Workers({ reconciler, queue, onError: (f) => retries.push(f.retryAfterMs) });
  assert.equal(workers.queue, queue);
  workers.start();
  queue.add('a');
  await workers.whenIdle();
  assert.deepEqual(retries, [50]);
  t.mock.timers.tick(50);
  await workers.whenIdle();
  assert.equal(reconciler.calls, 2);
  await workers.stop();
});

void test('concurrency must be an integer >= 1', T, () => {
  assert.throws(() => new Workers({ reconciler: scripted([]), concurrency: 0 }), RangeError);
  assert.throws(() => new Workers({ reconciler: scripted([]), concurrency: 1.5 }), RangeError);
});
