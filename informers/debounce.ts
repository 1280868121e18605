/**
 * A trailing debouncer: the action runs once, `delayMs` after the last schedule() call.
 *
 * Guarantees: a burst of schedule() calls yields one run; cancel() drops a pending run;
 * the timer never keeps the process alive on its own (unref), so a forgotten source cannot
 * hold the daemon open.
 */
export interface Debouncer {
  schedule(): void;
  cancel(): void;
  readonly pending: boolean;
}

export function createDebouncer(delayMs: number, action: () => void): Debouncer {
  let timer: NodeJS.Timeout | undefined;
  return {
    schedule() {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        action();
      }, delayMs);
      timer.unref();
    },
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
    get pending() {
      return timer !== undefined;
    },
  };
}
