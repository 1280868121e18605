/**
 * A delaying queue that asks a {@link RateLimiter} how long to wait before retrying a key
 * (client-go's rate-limiting queue).
 *
 * Guarantees:
 * - `addRateLimited(k)` records a failure of `k` and adds it after the limiter's delay (per-key
 *   exponential backoff by default); it returns that delay so callers can report the next retry.
 * - `forget(k)` resets `k`'s backoff; it does not cancel a delayed add already pending.
 * - `numRequeues(k)` is the limiter's failure count for `k`.
 * - Everything {@link DelayingQueue} and {@link WorkQueue} guarantee.
 */
import { DelayingQueue, type Clock } from './delaying-queue.js';
import type { WorkKey } from './queue.js';
import { ExponentialBackoffRateLimiter, type RateLimiter } from './rate-limiters.js';

export interface RateLimitingQueueOptions<K extends WorkKey> {
  /** Default: {@link ExponentialBackoffRateLimiter} with its defaults (1 s base, 5 min cap). */
  readonly rateLimiter?: RateLimiter<K>;
  readonly clock?: Clock;
}

export class RateLimitingQueue<K extends WorkKey> extends DelayingQueue<K> {
  readonly rateLimiter: RateLimiter<K>;

  constructor(options: RateLimitingQueueOptions<K> = {}) {
    super({ clock: options.clock });
    this.rateLimiter = options.rateLimiter ?? new ExponentialBackoffRateLimiter<K>();
  }

  /** Adds `key` after its backoff delay; returns that delay in ms. */
  addRateLimited(key: K): number {
    const delay = this.rateLimiter.when(key);
    this.addAfter(key, delay);
    return delay;
  }

  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }
}
