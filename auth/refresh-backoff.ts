/**
 * When a failed OAuth refresh may be tried again: bounded exponential backoff, per grant.
 *
 * Guarantees:
 * - After the n-th failure in a row, no attempt is allowed for min(initial · 2^(n-1), max) ms
 *   (1 s, 2 s, 4 s … 5 min by default), counted on the injected clock.
 * - A success resets it: the next failure waits `initial` again.
 * - One instance per grant: a grant whose authorization server is down never delays another.
 */

export const REFRESH_RETRY_INITIAL_MS = 1000;
export const REFRESH_RETRY_MAX_MS = 5 * 60_000;

export class RefreshBackoff {
  private delayMs = 0;
  private retryAt = 0;

  constructor(
    private readonly now: () => number,
    private readonly initialMs = REFRESH_RETRY_INITIAL_MS,
    private readonly maxMs = REFRESH_RETRY_MAX_MS,
  ) {}

  /** ms until an attempt is allowed again; 0 when one may run now. */
  waitLeft(): number {
    return Math.max(0, this.retryAt - this.now());
  }

  /** Records a failure; returns how long the next attempt waits. */
  failed(): number {
    this.delayMs = this.delayMs === 0 ? this.initialMs : Math.min(this.maxMs, this.delayMs * 2);
    this.retryAt = this.now() + this.delayMs;
    return this.delayMs;
  }

  succeeded(): void {
    this.delayMs = 0;
    this.retryAt = 0;
  }
}
