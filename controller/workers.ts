/**
 * Runs a {@link Reconciler} over a {@link RateLimitingQueue}, after controller-runtime's
 * controller loop, with `p-queue` bounding how many reconciles run at once.
 *
 * Guarantees:
 * - At most `concurrency` (default 4) reconciles run at once. A key is taken from the work
 *   queue only when a slot is free, so keys wait (and coalesce) in the work queue, not in
 *   p-queue.
 * - One key is never reconciled twice at once (the work queue's guarantee).
 * - After each reconcile: an error → `addRateLimited(key)` and `onError` is called with the
 *   delay; `{ requeueAfter > 0 }` → `forget(key)` then `addAfter(key, requeueAfter)`;
 *   otherwise → `forget(key)`. `done(key)` is always called, so a key added meanwhile runs
 *   once more.
 * - `onError` is the only place failures are reported; if it throws, the throw is dropped
 *   and the key is still retried.
 * - `stop()` stops taking keys (queued keys are dropped, delayed ones cancelled), then
 *   resolves once every running reconcile has finished. It does not abort them.
 * - `whenIdle()` resolves once nothing is queued and nothing is being reconciled. Keys waiting
 *   on a future delayed add (backoff, `requeueAfter`) do not count as busy. Before `start()`
 *   queued keys do count, so `whenIdle()` waits for `start()`.
 */
import PQueue from 'p-queue';
import type { Reconciler, Request, Result } from '../reconcilers/reconcile.js';
import type { WorkKey } from './queue.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

export const DEFAULT_CONCURRENCY = 4;

/** What `onError` is told about a failed reconcile. */
export interface ReconcileFailure<K extends WorkKey> {
  readonly key: K;
  readonly error: unknown;
  /** ms until the key is retried (the rate limiter's delay). */
  readonly retryAfterMs: number;
  /** Failures in a row of this key, this one included. */
  readonly failures: number;
}

export interface WorkersOptions<K extends WorkKey> {
  readonly reconciler: Reconciler<K>;
  /** Default: a new {@link RateLimitingQueue} with exponential backoff (1 s base, 5 min cap). */
  readonly queue?: RateLimitingQueue<K>;
  /** Most reconciles running at once. Default {@link DEFAULT_CONCURRENCY}. */
  readonly concurrency?: number;
  readonly onError?: (failure: ReconcileFailure<K>) => void;
}

export class Workers<K extends WorkKey = Request> {
  readonly queue: RateLimitingQueue<K>;
  readonly concurrency: number;
  private readonly reconciler: Reconciler<K>;
  private readonly onError: ((failure: ReconcileFailure<K>) => void) | undefined;
  private readonly slots: PQueue;
  private started = false;
  private loop: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;

  constructor(options: WorkersOptions<K>) {
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) {
      throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
    }
    this.concurrency = concurrency;
    this.reconciler = options.reconciler;
    this.onError = options.onError;
    this.queue = options.queue ?? new RateLimitingQueue<K>();
    this.slots = new PQueue({ concurrency });
  }

  /** Number of reconciles running now. */
  get running(): number {
    return this.slots.pending;
  }

  /** Starts taking keys from the queue. Throws if called twice or after `stop()`. */
  start(): void {
    if (this.started || this.stopping !== undefined) {
      throw new Error('Workers.start(): already started or stopped');
    }
    this.started = true;
    this.loop = this.run();
  }

  /** Shuts the queue down with drain and resolves when every running reconcile is over. */
  stop(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  /** Resolves when nothing is queued or being reconciled; future delayed adds don't count. */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  private async drain(): Promise<void> {
    await this.queue.shutdownWithDrain();
    await this.loop;
    // done() runs inside the task, so p-queue may still be unwinding it.
    await this.slots.onIdle();
  }

  /** Takes a key only when a slot is free, so p-queue never holds keys of its own. */
  private async run(): Promise<void> {
    for (;;) {
      while (this.slots.pending >= this.concurrency) {
        await new Promise<void>((resolve) => this.slots.once('next', () => resolve()));
      }
      const key = await this.queue.get();
      if (key === undefined) return;
      // process() never rejects: every outcome is handled inside it.
      void this.slots.add(() => this.process(key));
    }
  }

  private async process(key: K): Promise<void> {
    try {
      let result: Result | void;
      try {
        result = await this.reconciler.reconcile(key);
      } catch (error) {
        const retryAfterMs = this.queue.addRateLimited(key);
        this.report({ key, error, retryAfterMs, failures: this.queue.numRequeues(key) });
        return;
      }
      const requeueAfter = result ? result.requeueAfter : undefined;
      this.queue.forget(key);
      if (requeueAfter !== undefined && requeueAfter > 0) this.queue.addAfter(key, requeueAfter);
    } finally {
      this.queue.done(key);
    }
  }

  private report(failure: ReconcileFailure<K>): void {
    try {
      this.onError?.(failure);
    } catch {
      // A broken error callback must not stop the key from being retried or marked done.
    }
  }
}
