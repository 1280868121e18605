/**
 * A Holder that records what the pool told it, for tests. Not exported from `pool/index.ts`.
 */
import type { Holder } from '../types.js';

export class RecordingHolder implements Holder {
  readonly sessionId: string;
  readonly lost: string[] = [];
  listChanged = 0;
  #onLostWaiters: Array<(reason: string) => void> = [];
  #onChangedWaiters: Array<() => void> = [];

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  onLost(reason: string): void {
    this.lost.push(reason);
    for (const w of this.#onLostWaiters.splice(0)) w(reason);
  }

  onListChanged(): void {
    this.listChanged += 1;
    for (const w of this.#onChangedWaiters.splice(0)) w();
  }

  /** Resolves with the reason of the first onLost (at once if it came already). */
  nextLost(timeoutMs = 10_000): Promise<string> {
    const first = this.lost[0];
    if (first !== undefined) return Promise.resolve(first);
    return withTimeout(
      new Promise<string>((resolve) => this.#onLostWaiters.push(resolve)),
      timeoutMs,
      'onLost',
    );
  }

  /** Resolves at the next onListChanged. */
  nextListChanged(timeoutMs = 10_000): Promise<void> {
    return withTimeout(
      new Promise<void>((resolve) => this.#onChangedWaiters.push(resolve)),
      timeoutMs,
      'onListChanged',
    );
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} not called within ${ms} ms`)), ms);
    void p.then((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}
