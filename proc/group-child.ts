/**
 * A server process in a process group of its own, ended with everything it started: the one
 * spawn of MCP stdio servers (pool/stdio-transport.ts) and language servers
 * (lsp/server-process.ts).
 *
 * Why a group (DESIGN §5 "No orphans"): wrappers such as `npx` and `uvx` run the real server
 * as a grandchild, language servers start helpers (typescript-language-server runs tsserver);
 * ending only the child we spawned would leave them running. A descendant that calls `setsid()`
 * leaves even the group: on Linux it is found in /proc (process-tree.ts) and ended too.
 *
 * Guarantees:
 * - Spawned with `detached: true` (POSIX), so its pid is its process group id; `shell: false`;
 *   environment = `baseEnv` (default: this process's own) + `env` + `markEnv` (the owner's
 *   mark, run-mark.ts, which no `env` can override); cwd = `cwd` as given.
 * - `GroupChild.spawn` throws what a synchronous spawn failure throws; `started` resolves
 *   with the pid once the process runs, or rejects with the spawn error (ENOENT, EACCES…).
 *   `child.pid` is set as soon as spawn returns, so an `end()` racing `started` still finds
 *   the process.
 * - `onSpawn(pid)` is called once it runs, before the caller can write to it. Descendants
 *   outside its group are remembered while it lives (where /proc exists: at spawn, every
 *   DEFAULT_TREE_SCAN_MS, on `scanTree()` and when `end()` starts), each told once to
 *   `onDescendant`; `onGone` hears of each of them, and of the pid, once `end()` ended them.
 *   One that escaped and was never seen before the server exited cannot be told from any
 *   other child of PID 1 and is not touched here (after a hard kill of the daemon, the next
 *   one finds it by its `markEnv`: orphans.ts).
 * - `end(timings)` ends stdin, waits `stdinGraceMs` for the group to leave by itself, sends
 *   SIGTERM to the group, waits `graceMs`, then SIGKILL and up to `reapWaitMs` more (members
 *   that only PID 1 can reap); then the remembered descendants outside the group get the same
 *   SIGTERM, grace, SIGKILL, each only while it is still itself (PID-reuse safe). It resolves
 *   when the child exited and all of them are gone (or those waits passed). Idempotent: every
 *   call returns the first call's promise. Never signals group 0, 1 or our own.
 * - A signal that cannot be sent (not ESRCH) goes to `onSignalError`, never throws.
 * - It does not read or close stdout and stderr: they are the caller's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { groupAlive, signalGroup, waitFor } from './process-group.js';
import {
  endProcesses,
  ProcessTree,
  readStat,
  sharedTreeScanner,
  type ProcessIdentity,
  type TreeScanner,
} from './process-tree.js';

const POSIX = process.platform !== 'win32';

/** What the owner hears of a server's processes, and how it marks them (orphans.ts). */
export interface ProcessHooks {
  /** It runs (pid = its process group id), before anything is written to it. */
  readonly onSpawn?: (pid: number) => void;
  /** A descendant outside its group was seen (it is ended with the server). */
  readonly onDescendant?: (pid: number) => void;
  /** A process told by onSpawn or onDescendant is gone (end() ended it). */
  readonly onGone?: (pid: number) => void;
  /**
   * Set in its environment over everything else, so every descendant that keeps its
   * environment carries it: the daemon run's mark (run-mark.ts), how the next daemon finds
   * descendants no scan saw after a hard kill.
   */
  readonly markEnv?: Readonly<Record<string, string>>;
}

export interface GroupChildOptions extends ProcessHooks {
  readonly command: string;
  readonly args?: readonly string[];
  /** The environment the child starts from. Default: this process's own. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Added to (and overriding) `baseEnv`. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Where the process tree is watched from. Default: the process-wide shared scanner. */
  readonly treeScanner?: TreeScanner;
  /** A signal could not be delivered (EPERM…). */
  readonly onSignalError?: (error: Error) => void;
}

/** How `end()` takes its time (see the module comment). */
export interface EndTimings {
  /** After stdin ended, how long the group may take to leave by itself (0: signal at once). */
  readonly stdinGraceMs: number;
  /** After SIGTERM, before SIGKILL. */
  readonly graceMs: number;
  /** After SIGKILL, for the group to be reaped. */
  readonly reapWaitMs: number;
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return `process was killed by ${exit.signal}`;
  return `process exited with code ${exit.code ?? 'unknown'}`;
}

export class GroupChild {
  /** The process as node holds it: its stdio streams are the caller's to read and close. */
  readonly child: ChildProcess;
  /** The pid once it runs; rejects with the spawn error when it never started. */
  readonly started: Promise<number>;
  readonly #options: GroupChildOptions;
  #exit: ExitInfo | undefined;
  readonly #exitListeners: Array<(exit: ExitInfo) => void> = [];
  #tree: ProcessTree | undefined;
  #untrack: (() => void) | undefined;
  /** Descendants outside the group that were told to onDescendant. */
  readonly #escaped: ProcessIdentity[] = [];
  #ending: Promise<void> | undefined;

  /** Starts `options.command` in a group of its own (see the module comment). */
  static spawn(options: GroupChildOptions): GroupChild {
    const child = spawn(options.command, [...(options.args ?? [])], {
      cwd: options.cwd,
      env: { ...(options.baseEnv ?? process.env), ...options.env, ...options.markEnv },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: POSIX,
      shell: false,
      windowsHide: true,
    });
    return new GroupChild(child, options);
  }

  private constructor(child: ChildProcess, options: GroupChildOptions) {
    this.child = child;
    this.#options = options;
    this.started = new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => {
        child.off('error', reject);
        const pid = child.pid as number;
        options.onSpawn?.(pid);
        this.#watchTree(pid);
        resolve(pid);
      });
    });
    // The caller may await `started` later, or never (an end() racing it).
    this.started.catch(() => undefined);
    // After spawn, 'error' means a signal could not be delivered: the caller may listen too.
    child.on('error', () => undefined);
    child.once('exit', (code, signal) => {
      this.#exit = { code, signal };
      for (const listener of this.#exitListeners.splice(0)) listener(this.#exit);
    });
  }

  /** The pid (= its process group id) once spawned; undefined when spawn failed. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How it ended, once it has. */
  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  /** Called once when the process exits (at once when it already has). */
  onExit(listener: (exit: ExitInfo) => void): void {
    if (this.#exit) listener(this.#exit);
    else this.#exitListeners.push(listener);
  }

  /** Ends the group and the descendants that left it (see the module comment). */
  end(timings: EndTimings): Promise<void> {
    this.#ending ??= this.#end(timings);
    return this.#ending;
  }

  /** Remembers the server's descendants while it lives (Linux; nothing where no /proc). */
  #watchTree(pid: number): void {
    const root = readStat(pid);
    if (!POSIX || root === undefined) return;
    this.#tree = new ProcessTree({ pid, startTime: root.startTime }, (found) => {
      // Group members go with the group signal; only the ones that left need a record.
      if (found.pgrp === pid) return;
      this.#escaped.push(found);
      this.#options.onDescendant?.(found.pid);
    });
    this.#untrack = this.#scanner().track(this.#tree);
  }

  #scanner(): TreeScanner {
    return this.#options.treeScanner ?? sharedTreeScanner;
  }

  /**
   * A fresh look at its tree (its children may be newer than the last scan). end() does it
   * first; call it yourself before asking the process to exit on its own, since a descendant
   * is found only from a live ancestor.
   */
  async scanTree(): Promise<void> {
    if (this.#tree) await this.#scanner().scan();
  }

  async #end(timings: EndTimings): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // While the server still runs, its descendants still hang from it: look once more.
    await this.scanTree();
    try {
      this.child.stdin?.end();
    } catch {
      // Already closed: nothing to end.
    }
    const exited = (): boolean => this.#exit !== undefined;
    const gone = POSIX ? () => exited() && !groupAlive(pid) : exited;
    if (!(await waitFor(gone, timings.stdinGraceMs))) {
      this.#kill(pid, 'SIGTERM');
      if (!(await waitFor(gone, timings.graceMs))) {
        this.#kill(pid, 'SIGKILL');
        await waitFor(gone, timings.reapWaitMs);
      }
    }
    // Descendants that left the group: found again from the ones remembered (a child they
    // started since), then ended the same way, each only while it is still itself.
    if (this.#tree) {
      await this.scanTree();
      this.#untrack?.();
      await endProcesses(this.#tree.descendants(), timings.graceMs, timings.reapWaitMs);
      for (const d of this.#escaped) this.#options.onGone?.(d.pid);
    }
    this.#untrack?.();
    this.#options.onGone?.(pid);
  }

  #kill(pid: number, signal: NodeJS.Signals): void {
    try {
      if (POSIX) signalGroup(pid, signal);
      else this.child.kill(signal);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.#options.onSignalError?.(
        new Error(`could not send ${signal} to process group ${pid}: ${why}`),
      );
    }
  }
}
