/**
 * The pin store (issue #35): the tool and prompt definitions the user accepted, per scope and
 * connectionId, in one file beside the approvals (`<approvals>.pins.json`, mode 0600).
 *
 * Guarantees:
 * - Reads are synchronous, from memory: loaded at `open`, replaced by `reload()` and by every
 *   save of ours (memory first, so the pass that saved sees it at once).
 * - Fail closed: a file that cannot be read (a link, a FIFO, a directory, permissions) or
 *   parsed (not JSON, another version, an entry out of shape) sets `problem`, which names the
 *   file and the fix; the sessions then hold every server's tools and prompts as changed. Such
 *   a file is never written over: a save rejects with the same problem, and nothing is lost.
 *   A missing file is no pins yet (the first listing of each server is pinned).
 * - `reload()` says whether the file changed since we last read or wrote it (the daemon watches
 *   it: a file repaired or removed by hand takes effect without a restart).
 * - A save takes the approvals' cross-process lock protocol on its own lock (`<file>.lock`),
 *   re-reads the file under it, applies its change to what is on disk, and replaces the file
 *   atomically (api/private-file.ts). Saves of one store run in call order.
 */
import { readPrivateFile } from '../api/index.js';
import { replaceFile } from '../api/index.js';
import { reasonOf } from './errors.js';
import { ensureParentDir, FILE_MODE } from './file-io.js';
import { withFileLock } from './lock.js';
import {
  parsePins,
  serializePins,
  withServerPins,
  type PinsContent,
  type ServerPins,
} from './pin-file.js';

/** The pins file beside the approvals file `approvalsPath`. */
export function pinsFilePath(approvalsPath: string): string {
  return approvalsPath.endsWith('.json')
    ? `${approvalsPath.slice(0, -'.json'.length)}.pins.json`
    : `${approvalsPath}.pins.json`;
}

export interface PinStoreOptions {
  readonly path: string;
  readonly lockTimeoutMs?: number;
}

type Loaded =
  | { readonly ok: true; readonly content: PinsContent }
  | { readonly ok: false; readonly problem: string };

export class PinStore {
  readonly path: string;
  #loaded: Loaded = { ok: true, content: new Map() };
  /** What the file held when last read or written (its text, or its problem): what a re-read compares. */
  #seen = '';
  #tail: Promise<unknown> = Promise.resolve();
  readonly #lockTimeoutMs: number | undefined;

  private constructor(options: PinStoreOptions) {
    this.path = options.path;
    this.#lockTimeoutMs = options.lockTimeoutMs;
  }

  static async open(options: PinStoreOptions): Promise<PinStore> {
    const store = new PinStore(options);
    await store.reload();
    return store;
  }

  /** Why the pins cannot be trusted now (file and fix); undefined when they can. */
  get problem(): string | undefined {
    return this.#loaded.ok ? undefined : this.#loaded.problem;
  }

  /** The pins of `connectionId` under `scope`; undefined: never pinned (or a problem). */
  get(scope: string, connectionId: string): ServerPins | undefined {
    return this.#loaded.ok ? this.#loaded.content.get(scope)?.get(connectionId) : undefined;
  }

  /**
   * The pins of another connectionId of server `name` under `scope` taken under the approval
   * hash `approvalHash` (the same config, run in another environment); the latest taken.
   */
  sameConfig(scope: string, name: string, approvalHash: string): ServerPins | undefined {
    if (!this.#loaded.ok) return undefined;
    let found: ServerPins | undefined;
    for (const [id, pins] of this.#loaded.content.get(scope) ?? []) {
      if (!id.startsWith(`${name}::`) || pins.approvalHash !== approvalHash) continue;
      if (found === undefined || pins.pinnedAt > found.pinnedAt) found = pins;
    }
    return found;
  }

  /**
   * Re-reads the file; resolves true when it holds something else than when last read or
   * written by us (so our own writes change nothing). Never rejects: a bad file becomes `problem`.
   */
  reload(): Promise<boolean> {
    return this.#serial(async () => {
      const before = this.#seen;
      this.#loaded = await this.#read();
      return this.#seen !== before;
    });
  }

  /**
   * Replaces the pins of `connectionId` under `scope` by `change(current)`, current being
   * what the file holds under the lock. Rejects (saving nothing) when the store has a problem.
   */
  save(
    scope: string,
    connectionId: string,
    change: (current: ServerPins | undefined) => ServerPins,
  ): Promise<void> {
    if (!this.#loaded.ok) return Promise.reject(new Error(this.#loaded.problem));
    // Memory first: the pass that saves publishes with its pins at once.
    const mine = this.#loaded.content;
    this.#loaded = {
      ok: true,
      content: withServerPins(
        mine,
        scope,
        connectionId,
        change(mine.get(scope)?.get(connectionId)),
      ),
    };
    return this.#serial(() =>
      withFileLock(
        this.path,
        async () => {
          const disk = await this.#read();
          if (!disk.ok) {
            this.#loaded = disk;
            throw new Error(disk.problem);
          }
          const next = withServerPins(
            disk.content,
            scope,
            connectionId,
            change(disk.content.get(scope)?.get(connectionId)),
          );
          await ensureParentDir(this.path);
          const text = serializePins(next);
          try {
            await replaceFile(this.path, text, FILE_MODE);
          } catch (error) {
            throw new Error(`could not write the pins file ${this.path} (${reasonOf(error)})`, {
              cause: error,
            });
          }
          this.#loaded = { ok: true, content: next };
          this.#seen = `text:${text}`;
        },
        this.#lockTimeoutMs === undefined ? {} : { timeoutMs: this.#lockTimeoutMs },
      ),
    );
  }

  async #read(): Promise<Loaded> {
    const loaded = await this.#readFile();
    this.#seen = loaded.ok ? `text:${loaded.text}` : `problem:${loaded.problem}`;
    return loaded.ok ? { ok: true, content: loaded.content } : loaded;
  }

  async #readFile(): Promise<
    | { readonly ok: true; readonly content: PinsContent; readonly text: string }
    | { readonly ok: false; readonly problem: string }
  > {
    const fix = `repair it or remove it (every server's tools are pinned again at their next listing)`;
    let read;
    try {
      read = await readPrivateFile(this.path);
    } catch (error) {
      return {
        ok: false,
        problem: `the pins file ${this.path} cannot be read (${reasonOf(error)}): ${fix}`,
      };
    }
    if (read.kind === 'missing') return { ok: true, content: new Map(), text: '' };
    if (read.kind !== 'text')
      return {
        ok: false,
        problem: `the pins file ${this.path} is ${read.kind === 'link' ? 'a symbolic link' : 'not a regular file'}; mcpctl reads pins only from a regular file: ${fix}`,
      };
    const parsed = parsePins(read.text);
    return parsed.ok
      ? { ok: true, content: parsed.content, text: read.text }
      : {
          ok: false,
          problem: `the pins file ${this.path} is not valid: ${parsed.problem}: ${fix}`,
        };
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(work, work);
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
