/**
 * A work queue that can also add a key after a delay (client-go's delaying queue).
 *
 * Guarantees:
 * - `addAfter(k, ms)` adds `k` once `ms` have passed; `ms <= 0` adds it at once.
 * - At most one delayed add is pending per key, and the earliest time wins: a later
 *   `addAfter` of a key already waiting for an earlier time does not postpone it, an earlier
 *   one moves it forward.
 * - A delayed key is not cancelled by `add()`, `done()` or a rate limiter's `forget()`: when its
 *   time comes it is added like any other key (and deduped if already queued).
 * - `shutdown()` (and so `shutdownWithDrain()`) clears every pending timer; `addAfter` after
 *   shutdown is ignored.
 * - Time comes from an injectable {@link Clock}; the default reads the global `Date.now` and
 *   `setTimeout` on every call, so node:test `mock.timers` controls it even when enabled late.
 */
import { WorkQueue, type WorkKey } from './queue.js';

/** Time source and timers, injectable for tests. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms`; returns a function that cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, ms) {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/** Node fires longer timeouts after 1 ms, so longer delays are capped (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Waiting {
  readonly readyAt: number;
  readonly cancel: () => void;
}

export interface DelayingQueueOptions {
  readonly clock?: Clock;
}

export class DelayingQueue<K extends WorkKey> extends WorkQueue<K> {
  protected readonly clock: Clock;
  private readonly waiting = new Map<K, Waiting>();

  constructor(options: DelayingQueueOptions = {}) {
    super();
    this.clock = options.clock ?? systemClock;
  }

  /** Adds `key` after `ms` milliseconds, unless it is already due to be added sooner. */
  addAfter(key: K, ms: number): void {
    if (Number.isNaN(ms)) throw new RangeError(`addAfter(${String(key)}): delay is NaN`);
    if (this.isShuttingDown()) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.clock.now() + ms;
    const existing = this.waiting.get(key);
    if (existing !== undefined) {
      if (existing.readyAt <= readyAt) return;
      existing.cancel();
    }
    const cancel = this.clock.setTimer(
      () => {
        this.waiting.delete(key);
        this.add(key);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    this.waiting.set(key, { readyAt, cancel });
  }

  /** Number of keys waiting for a delayed add. */
  delayedLen(): number {
    return this.waiting.size;
  }

  override shutdown(): void {
    for (const entry of this.waiting.values()) entry.cancel();
    this.waiting.clear();
    super.shutdown();
  }
}
