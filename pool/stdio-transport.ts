/**
 * A stdio client Transport whose server runs in its own process group.
 *
 * Why not the SDK's StdioClientTransport: it starts the child in our process group and on
 * close signals only the child, so the grandchildren of wrappers (`npx`, `uvx`, shell
 * scripts) outlive it; it also only passes a small allowlist of environment variables. This
 * transport writes with the SDK's `serializeMessage`, reads stdout with our own bounded reader
 * (stdout-reader.ts: line budget, size limit), and starts and ends the process group itself.
 *
 * Guarantees:
 * - The child is spawned with `detached: true`, so its pid is its process group id and every
 *   descendant that does not leave the group on purpose is reached by a group signal.
 * - Where /proc shows the tree (Linux), descendants that leave the group (`setsid`, node's
 *   `detached`) are remembered while the server lives (process-tree.ts) and ended on close
 *   too, PID-reuse safe; `onDescendant` hears of each one outside the group, `onGone` of it
 *   once it is gone.
 * - Environment = `baseEnv` (default: this process's own) + `env`; cwd = `cwd` as given.
 * - `close()` ends stdin, waits `graceMs` for the group to leave by itself, sends SIGTERM to
 *   the group, waits `graceMs` again, then sends SIGKILL to the group. It resolves only when
 *   the child has exited and the group is gone (`kill(-pgid, 0)` fails), or, for members
 *   that cannot be reaped by us (zombies waiting for PID 1), after `reapWaitMs` more; then
 *   the remembered descendants outside the group get the same SIGTERM, grace, SIGKILL.
 *   It is idempotent: every call returns the same promise.
 * - An exit we did not ask for is reported once through `onerror` (an Error saying the exit
 *   code or signal) and then `onclose`; after `close()`, `onclose` is called once at the end.
 * - The last `stderrLines` lines of stderr are kept (`stderrTail()`); after close they are
 *   complete, because close waits (briefly) for stderr to reach its end.
 * - stdout is read by stdout-reader.ts: within the connection's budgets (`traffic`), a line that
 *   is not JSON-RPC or is over the message limit (`maxMessageBytes`, default 16 MiB) never
 *   ends the connection (see there).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from '../api/index.js';
import { LineTail } from './line-tail.js';
import { messageOf } from './errors.js';
import { groupAlive, signalGroup, waitFor } from './process-group.js';
import {
  endProcesses,
  ProcessTree,
  readStat,
  sharedTreeScanner,
  type ProcessIdentity,
  type TreeScanner,
} from './process-tree.js';
import { StdoutReader } from './stdout-reader.js';
import { TrafficGuard } from './traffic.js';

const POSIX = process.platform !== 'win32';

export interface GroupStdioTransportOptions {
  /** The server's name, for the errors and notes about its messages (default: the command's). */
  readonly name?: string;
  readonly command: string;
  readonly args?: readonly string[];
  /** The environment the child starts from. Default: this process's own. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Added to (and overriding) `baseEnv`. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** ms to wait after ending stdin, and again after SIGTERM. Default 1000. */
  readonly graceMs?: number;
  /** ms to wait after SIGKILL for the group to be reaped. Default 3000. */
  readonly reapWaitMs?: number;
  /** Lines of stderr to keep. Default 200. */
  readonly stderrLines?: number;
  /** Called once the child is running (pid known), before any message is sent. */
  readonly onSpawn?: (pid: number) => void;
  /** Called when close() finished with this pid (the group is gone; or the descendant). */
  readonly onGone?: (pid: number) => void;
  /** A descendant outside the server's group was seen (it is ended on close). */
  readonly onDescendant?: (pid: number) => void;
  /** Where the process tree is watched from. Default: the process-wide shared scanner. */
  readonly treeScanner?: TreeScanner;
  /** The connection's budgets (default: a guard with the default limits). Closed on close. */
  readonly traffic?: TrafficGuard;
  /** Largest stdout line taken as a message. Default MAX_MESSAGE_BYTES (tests use less). */
  readonly maxMessageBytes?: number;
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return `process was killed by ${exit.signal}`;
  return `process exited with code ${exit.code ?? 'unknown'}`;
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly #options: GroupStdioTransportOptions;
  readonly #traffic: TrafficGuard;
  readonly #stdout: StdoutReader;
  readonly #stderr: LineTail;
  #child: ChildProcess | undefined;
  #pid: number | undefined;
  #exit: ExitInfo | undefined;
  #spawnError: Error | undefined;
  #closing: Promise<void> | undefined;
  #closeFired = false;
  #tree: ProcessTree | undefined;
  #untrack: (() => void) | undefined;
  /** Descendants outside the group that were reported through onDescendant. */
  readonly #escaped: ProcessIdentity[] = [];

  constructor(options: GroupStdioTransportOptions) {
    this.#options = options;
    this.#stderr = new LineTail(options.stderrLines ?? 200);
    this.#traffic = options.traffic ?? new TrafficGuard();
    this.#stdout = new StdoutReader({
      transport: this,
      traffic: this.#traffic,
      stderr: this.#stderr,
      name: options.name ?? path.basename(options.command),
      maxMessageBytes: options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
    });
  }

  /** The connection's budgets and flood report. */
  get traffic(): TrafficGuard {
    return this.#traffic;
  }

  /** The child's pid (= its process group id) once spawned. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** How the child ended, once it has. */
  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  /** The spawn error (ENOENT, EACCES…) when the child never started. */
  get spawnError(): Error | undefined {
    return this.#spawnError;
  }

  stderrTail(): string[] {
    return this.#stderr.lines();
  }

  start(): Promise<void> {
    if (this.#child || this.#closing) {
      return Promise.reject(new Error('GroupStdioTransport already started'));
    }
    const o = this.#options;
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(o.command, [...(o.args ?? [])], {
          cwd: o.cwd,
          env: { ...(o.baseEnv ?? process.env), ...o.env },
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: POSIX,
          shell: false,
          windowsHide: true,
        });
      } catch (err) {
        this.#spawnError = err instanceof Error ? err : new Error(messageOf(err));
        reject(this.#spawnError);
        return;
      }
      this.#child = child;
      let spawned = false;

      child.once('spawn', () => {
        spawned = true;
        this.#pid = child.pid;
        if (child.pid !== undefined) {
          o.onSpawn?.(child.pid);
          this.#watchTree(child.pid);
        }
        resolve();
      });
      child.on('error', (err) => {
        if (!spawned) {
          this.#spawnError = err;
          reject(err);
          return;
        }
        // After spawn, 'error' means a signal could not be delivered: worth reporting.
        this.onerror?.(err);
      });
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        if (this.#closing === undefined) {
          // Nobody asked it to stop: the connection is dead. Say why, then close.
          this.onerror?.(new Error(describeExit(this.#exit)));
          this.#fireClose();
        }
      });

      if (child.stdout) this.#stdout.read(child.stdout);
      child.stdout?.on('error', (err) => this.#onStreamError(err));
      child.stdin?.on('error', (err) => this.#onStreamError(err));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => this.#stderr.push(text));
      child.stderr?.on('end', () => this.#stderr.flush());
      child.stderr?.on('error', () => {
        // Losing stderr loses diagnostics only, never the connection.
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || !stdin.writable || this.#exit !== undefined || this.#closing !== undefined) {
      return Promise.reject(new Error('Not connected'));
    }
    return new Promise<void>((resolve, reject) => {
      // The callback runs once the data is handed to the OS, which also gives backpressure.
      stdin.write(serializeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  /** Remembers the server's descendants while it lives (Linux; nothing where no /proc). */
  #watchTree(pid: number): void {
    const root = readStat(pid);
    if (!POSIX || root === undefined) return;
    const scanner = this.#options.treeScanner ?? sharedTreeScanner;
    this.#tree = new ProcessTree({ pid, startTime: root.startTime }, (found) => {
      // Group members go with the group signal; only the ones that left need a record.
      if (found.pgrp === pid) return;
      this.#escaped.push(found);
      this.#options.onDescendant?.(found.pid);
    });
    this.#untrack = scanner.track(this.#tree);
  }

  /** A fresh look at the tree (the server's children may be newer than the last scan). */
  async #rescanTree(): Promise<void> {
    if (this.#tree) await (this.#options.treeScanner ?? sharedTreeScanner).scan();
  }

  async #shutdown(): Promise<void> {
    const child = this.#child;
    // Read what is left without parsing it: a paused stream would never reach its end.
    this.#stdout.discard();
    // child.pid is set synchronously by a successful spawn, so a close() racing start() still
    // finds the process to end.
    const pid = this.#pid ?? child?.pid;
    if (child && pid !== undefined) {
      // While the server still runs, its descendants still hang from it: look once more.
      await this.#rescanTree();
      try {
        child.stdin?.end();
      } catch {
        // Already closed: nothing to end.
      }
      const exited = (): boolean => this.#exit !== undefined;
      const gone = POSIX ? () => exited() && !groupAlive(pid) : exited;
      const kill = (signal: NodeJS.Signals): void => {
        try {
          if (POSIX) signalGroup(pid, signal);
          else child.kill(signal);
        } catch (err) {
          this.onerror?.(
            new Error(`could not send ${signal} to process group ${pid}: ${messageOf(err)}`),
          );
        }
      };
      const grace = this.#options.graceMs ?? 1000;
      if (!(await waitFor(gone, grace))) {
        kill('SIGTERM');
        if (!(await waitFor(gone, grace))) {
          kill('SIGKILL');
          await waitFor(gone, this.#options.reapWaitMs ?? 3000);
        }
      }
      // Descendants that left the group: found again from the ones remembered (a child they
      // started since), then ended the same way, each only while it is still itself.
      if (this.#tree) {
        await this.#rescanTree();
        this.#untrack?.();
        await endProcesses(this.#tree.descendants(), grace, this.#options.reapWaitMs ?? 3000);
        for (const d of this.#escaped) this.#options.onGone?.(d.pid);
      }
      // The group is gone, so every writer of stderr is gone: its end comes at once. Bounded
      // anyway, in case a process left the group but kept the pipe.
      await waitForEnd(child, 250);
      child.stdout?.removeAllListeners('data');
      child.stdout?.destroy();
      child.stderr?.destroy();
      this.#stderr.flush();
      this.#options.onGone?.(pid);
    }
    this.#untrack?.();
    this.#stdout.clear();
    this.#traffic.close();
    this.#fireClose();
  }

  #onStreamError(err: Error): void {
    // EPIPE and friends after the child exited or while closing are the normal end of a pipe.
    if (this.#exit !== undefined || this.#closing !== undefined) return;
    this.onerror?.(err);
  }

  #fireClose(): void {
    if (this.#closeFired) return;
    this.#closeFired = true;
    this.onclose?.();
  }
}

function waitForEnd(child: ChildProcess, timeoutMs: number): Promise<void> {
  const streams = [child.stdout, child.stderr].filter(
    (s): s is NonNullable<typeof s> => s !== null && !s.readableEnded && !s.destroyed,
  );
  if (streams.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let left = streams.length;
    const timer = setTimeout(resolve, timeoutMs);
    for (const s of streams) {
      let counted = false;
      const done = (): void => {
        if (counted) return;
        counted = true;
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          resolve();
        }
      };
      // Both are listened to: a destroyed stream emits 'close' without 'end'. Our 'data'
      // listeners keep both streams flowing, so 'end' does come.
      s.once('end', done);
      s.once('close', done);
    }
  });
}
