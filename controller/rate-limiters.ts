/**
 * Per-key retry delays (client-go's rate limiters).
 *
 * Guarantees of {@link ExponentialBackoffRateLimiter}:
 * - The n-th `when(k)` since the last `forget(k)` returns `base * 2^(n-1)`, capped at `max`
 *   (defaults: 1 s base, 5 min cap), so failures of one key never slow down another.
 * - `numRequeues(k)` is the number of `when(k)` calls since the last `forget(k)`.
 * - `forget(k)` resets the key: the next `when(k)` returns `base` again.
 * - Deterministic (no jitter), so tests and "next retry at" messages can rely on it.
 */
import type { WorkKey } from './queue.js';

export interface RateLimiter<K extends WorkKey> {
  /** Records a failure of `key` and returns how many ms to wait before retrying it. */
  when(key: K): number;
  /** Clears `key`'s failure history (it succeeded, or is gone). */
  forget(key: K): void;
  /** How many failures of `key` were recorded since it was last forgotten. */
  numRequeues(key: K): number;
}

export interface ExponentialBackoffOptions {
  /** Delay after the first failure, in ms. Default 1000. */
  readonly baseDelayMs?: number;
  /** Largest delay, in ms. Default 300000 (5 minutes). */
  readonly maxDelayMs?: number;
}

export const DEFAULT_BASE_DELAY_MS = 1000;
export const DEFAULT_MAX_DELAY_MS = 5 * 60 * 1000;

/**
 * The delay before retry number `failures` (1-based): base, 2×base, 4×base … capped at max.
 * Shared by the rate limiter and the server reconciler's crash back-off.
 */
export function exponentialDelay(
  failures: number,
  baseDelayMs: number,
  maxDelayMs: number,
): number {
  // 2 ** n reaches Infinity after ~1024 failures; Math.min still yields the cap.
  return Math.min(baseDelayMs * 2 ** Math.max(0, failures - 1), maxDelayMs);
}

export class ExponentialBackoffRateLimiter<K extends WorkKey> implements RateLimiter<K> {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  private readonly failures = new Map<K, number>();

  constructor(options: ExponentialBackoffOptions = {}) {
    const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
    const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    if (!(Number.isFinite(base) && base > 0)) {
      throw new RangeError(`baseDelayMs must be a positive number, got ${base}`);
    }
    if (!(Number.isFinite(max) && max >= base)) {
      throw new RangeError(`maxDelayMs must be a number >= baseDelayMs (${base}), got ${max}`);
    }
    this.baseDelayMs = base;
    this.maxDelayMs = max;
  }

  when(key: K): number {
    const previous = this.failures.get(key) ?? 0;
    this.failures.set(key, previous + 1);
    return exponentialDelay(previous + 1, this.baseDelayMs, this.maxDelayMs);
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}
