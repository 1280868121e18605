/**
 * A stdio client Transport whose server runs in its own process group.
 *
 * Why not the SDK's StdioClientTransport: it starts the child in our process group and on
 * close signals only the child, so the grandchildren of wrappers (`npx`, `uvx`, shell
 * scripts) outlive it; it also only passes a small allowlist of environment variables. This
 * transport reuses the SDK's framing (ReadBuffer / serializeMessage) and differs only in how
 * the process is started and ended.
 *
 * Why one file of ~480 lines: it is the life of one process (spawn, read within the budgets,
 * exit, the close sequence), one state; the parts that stand alone already live beside it
 * (line-framer.ts, message-probe.ts, line-tail.ts, process-group.ts, process-tree.ts).
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
 * - A stdout line that is not JSON-RPC does not end the connection (servers that log to
 *   stdout by mistake keep working); it costs a counter, and a few per interval are noted in
 *   the stderr tail (see traffic.ts). A line that does not start with `{` is not parsed.
 * - Reading stdout stays within the connection's line budget (`traffic`): past it, reading
 *   pauses until the budget refills, so the server's writes block and a flood costs the
 *   daemon a bounded amount of work; lines are never lost or reordered by the pause.
 * - Notifications and requests from the server past the message budget are dropped before
 *   they are validated (answers to our requests always pass).
 * - A stdout line over the message limit (`maxMessageBytes`, 16 MiB: api/limits.ts) never
 *   ends the connection and is never held whole: it is dropped as it streams, and what it was
 *   is learnt from its top-level keys (message-probe.ts). An answer fails exactly its request:
 *   an error answer for its id (LIMIT_EXCEEDED_CODE, "answer of NAME exceeded the 16 MiB
 *   message limit") is delivered in its place; a request from the server is answered with an
 *   error; a notification, or a line whose id cannot be told, is dropped. Each is noted in the
 *   stderr tail and reported once to the traffic guard's `onOversized` listeners; the bytes
 *   dropped spend the guard's dropped-bytes budget, past which stdout is read later, so a
 *   stream of such lines (or one endless line) costs a bounded amount of work.
 */
import { asJsonRpcMessage } from './jsonrpc-shape.js';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { LIMIT_EXCEEDED_CODE, MAX_MESSAGE_BYTES, sizeText } from '../api/index.js';
import { LineFramer, type DroppedLine } from './line-framer.js';
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
  readonly #framer: LineFramer;
  readonly #traffic: TrafficGuard;
  /** Set while reading is paused for the line budget. */
  #resumeTimer: NodeJS.Timeout | undefined;
  /** Closing: stdout is drained unread (nobody is listening any more). */
  #discardStdout = false;
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
    this.#framer = new LineFramer(options.maxMessageBytes ?? MAX_MESSAGE_BYTES);
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

      child.stdout?.on('data', (chunk: Buffer) => this.#onStdout(chunk));
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
    this.#discardStdout = true;
    if (this.#resumeTimer !== undefined) clearTimeout(this.#resumeTimer);
    this.#resumeTimer = undefined;
    child?.stdout?.resume();
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
    this.#framer.clear();
    this.#traffic.close();
    this.#fireClose();
  }

  #onStdout(chunk: Buffer): void {
    if (this.#discardStdout) return;
    const dropped = this.#framer.append(chunk);
    // Bytes read only to be dropped cost their own budget: an endless line is read slowly.
    const wait = dropped > 0 ? this.#traffic.dropBytes(dropped) : 0;
    if (wait > 0 && this.#resumeTimer === undefined) this.#pause(wait, 'oversized');
    else this.#readLines();
  }

  /** Handles whole lines while the line budget lasts; past it, pauses stdout and comes back. */
  #readLines(): void {
    while (this.#resumeTimer === undefined && !this.#discardStdout && this.#framer.hasLine()) {
      const wait = this.#traffic.takeLine();
      if (wait > 0) {
        this.#pause(wait, 'lines');
        return;
      }
      const line = this.#framer.next();
      if (typeof line === 'string') this.#onLine(line);
      else if (line !== undefined) this.#onDropped(line);
    }
  }

  /** Stops reading stdout for `ms` (the server's writes block meanwhile), then reads on. */
  #pause(ms: number, budget: 'lines' | 'oversized'): void {
    const stdout = this.#child?.stdout;
    stdout?.pause();
    this.#traffic.throttled(ms, budget);
    this.#resumeTimer = setTimeout(() => {
      this.#resumeTimer = undefined;
      this.#readLines();
      if (this.#resumeTimer === undefined && !this.#discardStdout) stdout?.resume();
    }, ms);
  }

  /** A line over the message limit, already dropped: fail what it answers, say so. */
  #onDropped(line: DroppedLine): void {
    const limitBytes = this.#framer.maxBytes;
    const limit = sizeText(limitBytes);
    const size = sizeText(line.bytes);
    const method = line.method === undefined ? '' : ` ${JSON.stringify(line.method)}`;
    let what: string;
    if (line.kind === 'answer' && line.id !== undefined) {
      what = `the answer to request ${JSON.stringify(line.id)}, which failed with a size error`;
      this.onmessage?.({
        jsonrpc: '2.0',
        id: line.id,
        error: {
          code: LIMIT_EXCEEDED_CODE,
          message: `answer of ${this.#name} exceeded the ${limit} message limit (${size}); mcpctl dropped it: ask for less at a time`,
          data: { limitBytes, bytes: line.bytes },
        },
      });
    } else if (line.kind === 'request' && line.id !== undefined) {
      what = `a request${method}, answered with an error`;
      // The server would otherwise wait for an answer that cannot come.
      this.send({
        jsonrpc: '2.0',
        id: line.id,
        error: {
          code: LIMIT_EXCEEDED_CODE,
          message: `request of ${size} exceeded mcpctl's ${limit} message limit; it was dropped`,
        },
      }).catch(() => undefined);
    } else if (line.kind === 'notification') {
      what = `a notification${method}, dropped`;
    } else {
      what = 'not an answer to a request of ours, dropped';
    }
    this.#stderr.note(
      `[mcpctl] dropped a stdout line of ${size}, over the ${limit} message limit: ${what}`,
    );
    this.#traffic.oversized({ kind: line.kind, bytes: line.bytes, limitBytes });
  }

  /** The server's name in what we say about it. */
  get #name(): string {
    return this.#options.name ?? path.basename(this.#options.command);
  }

  #onLine(line: string): void {
    // Cheap first: a JSON-RPC message is an object, so anything else is not parsed at all.
    if (!JSON_OBJECT_START.test(line)) {
      this.#garbage(() => quoteStart(line));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.#garbage(() => firstLine(err));
      return;
    }
    // Over the budget, a notification or request is dropped before the costly validation.
    if (typeof value === 'object' && value !== null && 'method' in value) {
      if (!this.#traffic.admitMessage()) return;
    }
    const message = asJsonRpcMessage(value);
    if (message === undefined) {
      this.#garbage(() => `${quoteStart(line)} is JSON but not a JSON-RPC message`);
      return;
    }
    this.onmessage?.(message);
  }

  #garbage(describe: () => string): void {
    const note = this.#traffic.garbage(describe);
    if (note !== undefined) this.#stderr.note(note);
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

const JSON_OBJECT_START = /^\s*\{/;

/** The start of a line, quoted as JSON: a server's output may hold control characters. */
function quoteStart(line: string): string {
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
}

function firstLine(err: unknown): string {
  return messageOf(err).split('\n')[0]?.slice(0, 200) ?? '';
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
