/**
 * A language server's process as the connection uses it: a GroupChild (proc/group-child.ts),
 * the one spawn MCP stdio servers use too, with its stdio for JSON-RPC and a tail of stderr.
 *
 * Guarantees:
 * - Its own process group (DESIGN §5 "No orphans"): helpers it starts (typescript-language-
 *   server runs tsserver; `npx` runs the real server as a grandchild) end with it, and so do
 *   descendants that left the group with `setsid` (Linux, found in /proc). `processes` hears
 *   of each (the orphan record: `recordingHooks` of proc/orphans.ts).
 * - Environment = `baseEnv` (default: this process's) + `env`; cwd = `cwd`; `shell: false`.
 * - `spawnServer` resolves once the process runs, or rejects with an error naming the server
 *   and the command (ENOENT, EACCES) when it never started.
 * - `findDescendants()` before the polite `exit`: escapees are found from the live server.
 * - `end(graceMs)` ends stdin, sends SIGTERM to the group at once (the polite `shutdown` and
 *   `exit` came before, from the connection), waits `graceMs`, then SIGKILL and up to
 *   REAP_WAIT_MS more; then the escaped descendants the same way. It resolves when all of
 *   them are gone (or those waits passed). Idempotent. Never signals group 0, 1 or our own.
 * - The last STDERR_LINES lines of stderr (each cut at STDERR_LINE_CHARS) are kept.
 */
import type { Readable, Writable } from 'node:stream';
import {
  describeExit as describeProcessExit,
  GroupChild,
  LineTail,
  type ExitInfo,
  type LinesSince,
  type ProcessHooks,
} from '../proc/index.js';

export const STDERR_LINES = 50;
export const STDERR_LINE_CHARS = 1000;
export const REAP_WAIT_MS = 3000;

export type { ExitInfo };

export interface ServerCommand {
  /** The server's name, for errors. */
  readonly name: string;
  readonly command: string;
  readonly args?: readonly string[];
  /** The environment the process starts from (default: this process's). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Added to (and overriding) `baseEnv`. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** What to tell of its processes (the orphan record). Default: nothing. */
  readonly processes?: ProcessHooks;
}

/** A running server process as the connection uses it. */
export interface ServerProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** How it ended, once it has. */
  readonly exit: ExitInfo | undefined;
  /** Called once when the process exits (at once when it already has). */
  onExit(listener: (exit: ExitInfo) => void): void;
  /** The last lines of its stderr. */
  stderrTail(): string[];
  /** Whole stderr lines from sequence number `seq` on (`mcpctl logs -f`; proc/line-tail.ts). */
  stderrSince(seq: number): LinesSince;
  /**
   * Looks for its descendants now, so the ones outside its group are ended with it: call it
   * while it still runs, before asking it to exit (once it exited they hang from PID 1).
   */
  findDescendants(): Promise<void>;
  /** Ends the process group and its escaped descendants (see the guarantees); idempotent. */
  end(graceMs: number): Promise<void>;
}

/** Starts a server process (tests hand in their own). */
export type SpawnServer = (command: ServerCommand) => Promise<ServerProcess>;

/** "the process exited with code 3", "the process was killed by SIGKILL". */
export function describeExit(exit: ExitInfo): string {
  return `the ${describeProcessExit(exit)}`;
}

export const spawnServer: SpawnServer = async (command) => {
  let proc: GroupChild;
  try {
    proc = GroupChild.spawn({
      command: command.command,
      ...(command.args ? { args: command.args } : {}),
      ...(command.baseEnv ? { baseEnv: command.baseEnv } : {}),
      ...(command.env ? { env: command.env } : {}),
      cwd: command.cwd,
      ...command.processes,
    });
  } catch (err) {
    throw spawnError(command, err);
  }
  const server = new LanguageServerProcess(proc);
  try {
    await proc.started;
  } catch (err) {
    throw spawnError(command, err);
  }
  return server;
};

function spawnError(command: ServerCommand, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'not found (is it installed and on PATH?)'
      : code === 'EACCES'
        ? 'not executable'
        : err instanceof Error
          ? err.message
          : String(err);
  return new Error(`language server "${command.name}": could not start ${command.command}: ${why}`);
}

class LanguageServerProcess implements ServerProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly #proc: GroupChild;
  readonly #stderr = new LineTail(STDERR_LINES, STDERR_LINE_CHARS);
  #ending: Promise<void> | undefined;

  constructor(proc: GroupChild) {
    this.#proc = proc;
    const child = proc.child;
    this.stdin = child.stdin!;
    this.stdout = child.stdout!;
    // Writes after the server died fail with EPIPE: the exit is reported, not the pipe.
    this.stdin.on('error', () => undefined);
    this.stdout.on('error', () => undefined);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => this.#stderr.push(text));
    child.stderr?.on('error', () => undefined);
  }

  get pid(): number {
    return this.#proc.pid!;
  }

  get exit(): ExitInfo | undefined {
    return this.#proc.exit;
  }

  onExit(listener: (exit: ExitInfo) => void): void {
    this.#proc.onExit(listener);
  }

  stderrTail(): string[] {
    return this.#stderr.lines();
  }

  stderrSince(seq: number): LinesSince {
    return this.#stderr.since(seq);
  }

  findDescendants(): Promise<void> {
    return this.#proc.scanTree();
  }

  end(graceMs: number): Promise<void> {
    this.#ending ??= (async () => {
      await this.#proc.end({ stdinGraceMs: 0, graceMs, reapWaitMs: REAP_WAIT_MS });
      this.stdout.destroy();
      this.#proc.child.stderr?.destroy();
    })();
    return this.#ending;
  }
}
