/**
 * A server's whole process tree, for processes that leave its process group.
 *
 * The group signal of group-child.ts reaches every descendant that stays in the server's
 * group; one that calls `setsid()` (node's `detached: true`, `setsid`, daemonising helpers)
 * escapes it and would outlive the server. On Linux the parent links in /proc/<pid>/stat show
 * the tree: while a server lives, its descendants are remembered with their start times, and
 * on close every remembered one that is still that same process is ended.
 *
 * Guarantees:
 * - PID-reuse safe: a process is identified by (pid, start time); a remembered pid that now
 *   belongs to another process (different start time) or has exited is never signalled.
 * - A tree is walked only from a root that is still the process we started (start time
 *   checked), and from remembered descendants that are still themselves: once a descendant
 *   was seen, its own later children are found even after it was re-parented to PID 1.
 * - Never signals pid 0/1 nor this process.
 * - One /proc scan serves every tracked tree (TreeScanner): scans are shared, coalesced
 *   while one runs, asynchronous (the event loop keeps serving), and periodic only while a
 *   tree is tracked (an unref'd timer, so it never keeps the daemon alive).
 * - Where there is no /proc (macOS, Windows) nothing is tracked and nothing is signalled:
 *   only the group signal applies there.
 */
import { readdir, readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { waitFor } from './process-group.js';

/** A process as itself: its pid and its start time (clock ticks after boot). */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: string;
}

export interface ProcStat {
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly startTime: string;
}

/** Parses the text of /proc/<pid>/stat; undefined when it is not one. */
export function parseStat(text: string): ProcStat | undefined {
  // Field 2 (comm) is in parentheses and may itself contain spaces and ')': split after the
  // last ')'. The remaining fields start at field 3 (state).
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgrp] = [rest[0], Number(rest[1]), Number(rest[2])];
  const startTime = rest[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  if (!Number.isInteger(ppid) || !Number.isInteger(pgrp)) return undefined;
  return { state, ppid, pgrp, startTime };
}

/** /proc/<pid>/stat now; undefined when the process does not exist or there is no /proc. */
export function readStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

const isRunning = (stat: ProcStat | undefined): stat is ProcStat =>
  stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';

/** True while `id` runs as that very process (not exited, not a zombie, pid not reused). */
export function stillRunning(id: ProcessIdentity): boolean {
  const stat = readStat(id.pid);
  return isRunning(stat) && stat.startTime === id.startTime;
}

/** Every process's stat, by pid; undefined where there is no /proc. */
export type ProcessTable = ReadonlyMap<number, ProcStat>;

export async function readProcessTable(): Promise<ProcessTable | undefined> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return undefined;
  }
  const table = new Map<number, ProcStat>();
  await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        try {
          const stat = parseStat(await readFile(`/proc/${n}/stat`, 'utf8'));
          if (stat) table.set(Number(n), stat);
        } catch {
          // Exited while we looked: not part of anything any more.
        }
      }),
  );
  return table;
}

/** Running processes by parent pid: built once per scan, shared by every tree. */
export function childrenIndex(table: ProcessTable): ReadonlyMap<number, readonly number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, stat] of table) {
    if (!isRunning(stat)) continue;
    const list = children.get(stat.ppid);
    if (list) list.push(pid);
    else children.set(stat.ppid, [pid]);
  }
  return children;
}

/** The descendants of one server process, as far as they were ever seen. */
export class ProcessTree {
  readonly root: ProcessIdentity;
  readonly #seen = new Map<number, string>();
  readonly #onNew: (found: ProcessIdentity & { readonly pgrp: number }) => void;

  /** `onNew`: a descendant seen for the first time (e.g. to record it for the orphan reaper). */
  constructor(
    root: ProcessIdentity,
    onNew: (found: ProcessIdentity & { readonly pgrp: number }) => void = () => undefined,
  ) {
    this.root = root;
    this.#onNew = onNew;
  }

  /** Remembers every process of `table` that descends from the root or a remembered one. */
  observe(table: ProcessTable, children = childrenIndex(table)): void {
    const isItself = (id: ProcessIdentity): boolean => {
      const stat = table.get(id.pid);
      return isRunning(stat) && stat.startTime === id.startTime;
    };
    const from: number[] = [];
    if (isItself(this.root)) from.push(this.root.pid);
    for (const [pid, startTime] of this.#seen) if (isItself({ pid, startTime })) from.push(pid);
    const visited = new Set<number>(from);
    while (from.length > 0) {
      const parent = from.pop() as number;
      for (const child of children.get(parent) ?? []) {
        if (visited.has(child)) continue;
        visited.add(child);
        const stat = table.get(child);
        if (!stat || child <= 1 || child === process.pid) continue;
        const known = this.#seen.get(child);
        // A remembered pid with another start time was reused: this is someone else's now.
        if (known !== undefined && known !== stat.startTime) continue;
        if (known === undefined) {
          this.#seen.set(child, stat.startTime);
          this.#onNew({ pid: child, startTime: stat.startTime, pgrp: stat.pgrp });
        }
        from.push(child);
      }
    }
  }

  /** Every descendant ever seen (some may have exited since). */
  descendants(): ProcessIdentity[] {
    return [...this.#seen].map(([pid, startTime]) => ({ pid, startTime }));
  }
}

/**
 * Ends every process of `ids` that still runs as itself: SIGTERM, `graceMs` to go, then
 * SIGKILL and up to `reapWaitMs` for them to be gone. Resolves once none of them runs.
 */
export async function endProcesses(
  ids: readonly ProcessIdentity[],
  graceMs: number,
  reapWaitMs: number,
): Promise<void> {
  const safe = ids.filter((id) => id.pid > 1 && id.pid !== process.pid);
  const left = (): ProcessIdentity[] => safe.filter(stillRunning);
  const signal = (sig: NodeJS.Signals): void => {
    for (const id of left()) {
      try {
        process.kill(id.pid, sig);
      } catch {
        // Gone in between, or not ours to signal: nothing more we can do.
      }
    }
  };
  if (left().length === 0) return;
  signal('SIGTERM');
  if (await waitFor(() => left().length === 0, graceMs)) return;
  signal('SIGKILL');
  await waitFor(() => left().length === 0, reapWaitMs);
}

/** Shared /proc scans for every tracked tree (see the module comment). */
export class TreeScanner {
  readonly #intervalMs: number;
  readonly #trees = new Set<ProcessTree>();
  #timer: NodeJS.Timeout | undefined;
  #scanning: Promise<void> | undefined;
  /** A scan to start when the running one ends (what a caller of scan() waits for then). */
  #next: Promise<void> | undefined;

  /** `intervalMs`: how often the trees are refreshed while any is tracked. */
  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs;
  }

  /** Tracks `tree` until the returned function is called; scans at once. */
  track(tree: ProcessTree): () => void {
    this.#trees.add(tree);
    if (this.#timer === undefined && this.#intervalMs > 0) {
      this.#timer = setInterval(() => void this.scan(), this.#intervalMs);
      this.#timer.unref();
    }
    void this.scan();
    return () => {
      this.#trees.delete(tree);
      if (this.#trees.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  /**
   * Refreshes every tracked tree with a scan that starts after this call (a scan already
   * running may have missed a process started since): callers at once share one next scan.
   */
  scan(): Promise<void> {
    if (this.#scanning === undefined) {
      // Bookkeeping only: a failed scan leaves the trees as they were, and never rejects.
      this.#scanning = this.#scanOnce()
        .catch(() => undefined)
        .finally(() => {
          this.#scanning = undefined;
        });
      return this.#scanning;
    }
    this.#next ??= this.#scanning.then(() => {
      this.#next = undefined;
      return this.scan();
    });
    return this.#next;
  }

  async #scanOnce(): Promise<void> {
    if (this.#trees.size === 0) return;
    const table = await readProcessTable();
    if (!table) return;
    const children = childrenIndex(table);
    for (const tree of this.#trees) tree.observe(table, children);
  }
}

/** How often the daemon's trees are refreshed: rarely, since a full /proc scan costs CPU. */
export const DEFAULT_TREE_SCAN_MS = 5000;

/** The one scanner of this process (every GroupChild uses it unless given another). */
export const sharedTreeScanner = new TreeScanner(DEFAULT_TREE_SCAN_MS);
