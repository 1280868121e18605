/**
 * Helpers for the informer tests (not used at run time): fresh temp dirs, file writes the way
 * editors do them, and waits with deadlines instead of fixed sleeps.
 */
import { mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export async function makeTempDir(prefix = 'mcpctl-informers-'): Promise<{
  dir: string;
  cleanup: () => Promise<void>;
}> {
  // realpath: the workspace of a session is a realpath, and macOS' tmpdir is a symlink.
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

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

/** Polls `predicate` every 10 ms; throws with `what` when `timeoutMs` passes first. */
export async function waitFor(
  predicate: () => boolean,
  what: string,
  timeoutMs = 3000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
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
    await waitFor(() => this.events.length >= n, what, timeoutMs);
    return this.events[n - 1];
  }

  /** The event after the `seen` already recorded ones. */
  next(seen: number, what?: string, timeoutMs?: number): Promise<T> {
    return this.nth(seen + 1, what, timeoutMs);
  }
}
