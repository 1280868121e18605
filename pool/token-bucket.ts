/**
 * A token bucket: at most `burst` events at once, `perSecond` on average.
 *
 * Guarantees: `take()` succeeds for the first `burst` calls and then at `perSecond` per second
 * of the injected clock; a refused `take()` costs no token; `msUntilToken()` is 0 when a
 * token is there and otherwise the wait until one is; `give()` returns one token, never past
 * `burst`; `spend(n)` takes n even past zero, a debt the refill repays before the next token.
 * Constant time and memory.
 */
export class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(perSecond > 0 && burst >= 1))
      throw new RangeError(`a token bucket needs perSecond > 0 and burst >= 1`);
    this.#tokens = burst;
    this.#at = now();
  }

  take(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Takes `n` tokens whether or not they are there (what was already used must be paid). */
  spend(n: number): void {
    this.#refill();
    this.#tokens -= n;
  }

  /** Returns a token taken for something that turned out not to count. */
  give(): void {
    this.#refill();
    this.#tokens = Math.min(this.burst, this.#tokens + 1);
  }

  msUntilToken(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil(((1 - this.#tokens) * 1000) / this.perSecond);
  }

  #refill(): void {
    const t = this.now();
    // A clock that steps back refills nothing (and does not drain either).
    if (t > this.#at)
      this.#tokens = Math.min(this.burst, this.#tokens + ((t - this.#at) * this.perSecond) / 1000);
    this.#at = t;
  }
}
