/**
 * Starts on demand (issue #34): the requests waiting for an idle server to start, per name.
 * A request that needs an idle server calls `demand(name)` and waits; the reconcile pass of
 * that name takes the waiters registered before it began (`take`), connects because someone
 * waits, and settles them at its end: resolved when the server serves, rejected otherwise.
 *
 * Guarantees:
 * - A waiter is settled by exactly one pass: the first one that began after it was
 *   registered (the queue runs one more pass for a key added during a pass), so a pass that
 *   was already deciding without it never rejects it.
 * - `close()` rejects every waiter; a demand after it rejects at once.
 */

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

export class Demands {
  readonly #waiting = new Map<string, Waiter[]>();
  #closed: Error | undefined;

  /** Resolves when a pass has `name` serving; rejects with why it does not. */
  demand(name: string): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closed);
    return new Promise<void>((resolve, reject) => {
      const list = this.#waiting.get(name);
      if (list) list.push({ resolve, reject });
      else this.#waiting.set(name, [{ resolve, reject }]);
    });
  }

  /** Whether a request waits for `name` now. */
  waiting(name: string): boolean {
    return this.#waiting.has(name);
  }

  /** The waiters a pass of `name` beginning now answers (they are no longer waiting). */
  take(name: string): readonly Waiter[] {
    const list = this.#waiting.get(name) ?? [];
    this.#waiting.delete(name);
    return list;
  }

  close(reason: Error): void {
    this.#closed = reason;
    for (const list of this.#waiting.values()) for (const w of list) w.reject(reason);
    this.#waiting.clear();
  }
}

/** Ends what `take` returned: `error` undefined when the server serves now. */
export function settle(waiters: readonly Waiter[], error: Error | undefined): void {
  for (const w of waiters) {
    if (error) w.reject(error);
    else w.resolve();
  }
}
