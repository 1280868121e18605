/**
 * Helpers for the informer tests (not used at run time): file writes the way editors do them,
 * and a recorder of events to wait for with a deadline instead of a fixed sleep. (Temp dirs and
 * polling: testing/ at the top, shared by every folder's tests.)
 */
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { until } from '../../testing/until.js';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Save the way vim / VS Code do: write a temp file next to it, then rename it over. */
export async function atomicWrite(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}`);
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** Records events; wait for the n-th one with a deadline. */
export class Recorder<T> {
  readonly events: T[] = [];

  readonly push = (event: T): void => {
    this.events.push(event);
  };

  get count(): number {
    return this.events.length;
  }

  /** Resolves with event number `n` (1-based) once it arrived. */
  async nth(n: number, what = `event #${n}`, timeoutMs = 3000): Promise<T> {
    await until(what, () => this.events.length >= n, { timeoutMs });
    return this.events[n - 1];
  }

  /** The event after the `seen` already recorded ones. */
  next(seen: number, what?: string, timeoutMs?: number): Promise<T> {
    return this.nth(seen + 1, what, timeoutMs);
  }
}
