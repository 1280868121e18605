/**
 * The one "poll until true" of the tests (and the bench): wait for a condition with a
 * deadline, never a fixed sleep.
 *
 * Guarantees:
 * - `check` (sync or async) runs at once, then after each pause, until it returns something
 *   other than `undefined` or `false`; `until` resolves with that value.
 * - The pauses grow from 1 ms, doubling, to `intervalMs` (default 100): a cheap check is
 *   answered almost at once, one that starts a process or lists thousands of tools is not run
 *   more often than `intervalMs` allows.
 * - A check that throws counts as "not yet" (a file not written yet, a socket not listening
 *   yet). To stop early, return a value that says so and test it after the wait.
 * - Past `timeoutMs` (default 15 s) it rejects with an Error naming `what`, the timeout and the
 *   last value or error seen, so a failure says what the state was, not just "timeout". A
 *   `what` that is a function is asked then, so it can show state gathered during the wait
 *   (a child's stderr).
 * - No timer outlives the wait.
 */

export interface UntilOptions {
  /** How long to wait before giving up (default 15 000 ms). */
  readonly timeoutMs?: number;
  /** The longest pause between two checks (default 100 ms). */
  readonly intervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_INTERVAL_MS = 100;

export async function until<T>(
  what: string | (() => string),
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: UntilOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let pause = 1; ; pause = Math.min(pause * 2, intervalMs)) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}; last: ${shown(last)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

function shown(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
