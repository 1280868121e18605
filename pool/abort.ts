/**
 * Racing work against an AbortSignal.
 *
 * Guarantees:
 * - `abortable` settles like `work`, or rejects with `signal.reason` as soon as the signal
 *   aborts (at once if it already has); it removes its listener either way.
 * - `settleOrAbandon` gives work that should honour the signal a bounded time to do so after
 *   the abort (so a connector can kill its process before the caller hears about it), and
 *   hands a result that arrives too late to `onLate` so it can be closed, never leaked.
 * - `sleep` resolves after its time, or at once when the signal aborts; it never rejects.
 */
import { messageOf } from './errors.js';

export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(reasonOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reasonOf(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

export function settleOrAbandon<T>(
  work: Promise<T>,
  signal: AbortSignal,
  boundAfterAbortMs: number,
  onLate: (value: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        reject(reasonOf(signal));
      }, boundAfterAbortMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      return true;
    };
    work.then(
      (value) => {
        if (finish()) resolve(value);
        else onLate(value);
      },
      (err: unknown) => {
        if (finish()) reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new Error(reason === undefined ? 'aborted' : messageOf(reason));
}
