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
 * - The process is a GroupChild (proc/group-child.ts): its own process group, descendants
 *   that leave the group (`setsid`) remembered and ended with it, PID-reuse safe;
 *   `onSpawn`, `onDescendant` and `onGone` are its hooks (the orphan record's feed), and
 *   `markEnv` the daemon run's mark in its environment (proc/run-mark.ts).
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
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from '../api/index.js';
import {
  describeExit,
  GroupChild,
  LineTail,
  type ExitInfo,
  type LinesSince,
  type GroupChildOptions,
} from '../proc/index.js';
import { messageOf } from './errors.js';
import { StdoutReader } from './stdout-reader.js';
import { TrafficGuard } from './traffic.js';

// The process machinery is proc/'s; these stay importable from here.
export { describeExit, type ExitInfo };

/** The child's own options (proc/'s GroupChild: command, environment, hooks), and the transport's. */
export interface GroupStdioTransportOptions extends Omit<GroupChildOptions, 'onSignalError'> {
  /** The server's name, for the errors and notes about its messages (default: the command's). */
  readonly name?: string;
  /** ms to wait after ending stdin, and again after SIGTERM. Default 1000. */
  readonly graceMs?: number;
  /** ms to wait after SIGKILL for the group to be reaped. Default 3000. */
  readonly reapWaitMs?: number;
  /** Lines of stderr to keep. Default 200. */
  readonly stderrLines?: number;
  /** The connection's budgets (default: a guard with the default limits). Closed on close. */
  readonly traffic?: TrafficGuard;
  /** Largest stdout line taken as a message. Default MAX_MESSAGE_BYTES (tests use less). */
  readonly maxMessageBytes?: number;
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly #options: GroupStdioTransportOptions;
  readonly #traffic: TrafficGuard;
  readonly #stdout: StdoutReader;
  readonly #stderr: LineTail;
  #process: GroupChild | undefined;
  #pid: number | undefined;
  #spawnError: Error | undefined;
  #closing: Promise<void> | undefined;
  #closeFired = false;

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
    return this.#process?.exit;
  }

  /** The spawn error (ENOENT, EACCES…) when the child never started. */
  get spawnError(): Error | undefined {
    return this.#spawnError;
  }

  stderrTail(): string[] {
    return this.#stderr.lines();
  }

  stderrSince(seq: number): LinesSince {
    return this.#stderr.since(seq);
  }

  start(): Promise<void> {
    if (this.#process || this.#closing) {
      return Promise.reject(new Error('GroupStdioTransport already started'));
    }
    const o = this.#options;
    let proc: GroupChild;
    try {
      proc = GroupChild.spawn({
        command: o.command,
        ...(o.args ? { args: o.args } : {}),
        ...(o.baseEnv ? { baseEnv: o.baseEnv } : {}),
        ...(o.env ? { env: o.env } : {}),
        ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
        ...(o.treeScanner ? { treeScanner: o.treeScanner } : {}),
        ...(o.onSpawn ? { onSpawn: o.onSpawn } : {}),
        ...(o.onDescendant ? { onDescendant: o.onDescendant } : {}),
        ...(o.onGone ? { onGone: o.onGone } : {}),
        ...(o.markEnv ? { markEnv: o.markEnv } : {}),
        onSignalError: (err) => this.onerror?.(err),
      });
    } catch (err) {
      this.#spawnError = err instanceof Error ? err : new Error(messageOf(err));
      return Promise.reject(this.#spawnError);
    }
    this.#process = proc;
    const child = proc.child;
    proc.onExit((exit) => {
      if (this.#closing === undefined) {
        // Nobody asked it to stop: the connection is dead. Say why, then close.
        this.onerror?.(new Error(describeExit(exit)));
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
    return proc.started.then(
      (pid) => {
        this.#pid = pid;
        // After spawn, 'error' means a signal could not be delivered: worth reporting.
        child.on('error', (err) => this.onerror?.(err));
      },
      (err: unknown) => {
        this.#spawnError = err instanceof Error ? err : new Error(messageOf(err));
        throw this.#spawnError;
      },
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.child.stdin;
    if (!stdin || !stdin.writable || this.exit !== undefined || this.#closing !== undefined) {
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

  async #shutdown(): Promise<void> {
    const proc = this.#process;
    // Read what is left without parsing it: a paused stream would never reach its end.
    this.#stdout.discard();
    // child.pid is set synchronously by a successful spawn, so a close() racing start() still
    // finds the process to end.
    if (proc && proc.pid !== undefined) {
      const grace = this.#options.graceMs ?? 1000;
      await proc.end({
        stdinGraceMs: grace,
        graceMs: grace,
        reapWaitMs: this.#options.reapWaitMs ?? 3000,
      });
      // The group is gone, so every writer of stderr is gone: its end comes at once. Bounded
      // anyway, in case a process left the group but kept the pipe.
      const child = proc.child;
      await waitForEnd(child, 250);
      child.stdout?.removeAllListeners('data');
      child.stdout?.destroy();
      child.stderr?.destroy();
      this.#stderr.flush();
    }
    this.#stdout.clear();
    this.#traffic.close();
    this.#fireClose();
  }

  #onStreamError(err: Error): void {
    // EPIPE and friends after the child exited or while closing are the normal end of a pipe.
    if (this.exit !== undefined || this.#closing !== undefined) return;
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
