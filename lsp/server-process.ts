/**
 * A language server's process: started in its own process group, ended with its group.
 *
 * Why a group (DESIGN §5 "No orphans"): servers start helpers (typescript-language-server runs
 * tsserver, wrappers such as `npx` run the real server as a grandchild); ending only the child
 * we spawned would leave them running. This is the small local form of what
 * pool/stdio-transport.ts does for MCP servers (lsp/ may import only api/): the pool can hand a
 * fuller one in (`SpawnServer`: process-tree tracking, the orphan record) through
 * LspConnectionOptions.
 *
 * Guarantees:
 * - Spawned with `detached: true` (POSIX), so its pid is its process group id; `shell: false`.
 * - Environment = `baseEnv` (default: this process's) + `env`; cwd = `cwd`.
 * - `spawnServer` resolves once the process runs, or rejects with an error naming the command
 *   (ENOENT, EACCES) when it never started.
 * - `end(graceMs)` sends SIGTERM to the group, waits `graceMs` for the group to be gone, then
 *   SIGKILL, then waits up to REAP_WAIT_MS more; it resolves when the child exited and the group
 *   is gone (or that wait passed). Idempotent. Never signals group 0, 1 or our own.
 * - The last STDERR_LINES lines of stderr (each cut at STDERR_LINE_CHARS) are kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

const POSIX = process.platform !== 'win32';
export const STDERR_LINES = 50;
export const STDERR_LINE_CHARS = 1000;
export const REAP_WAIT_MS = 3000;

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
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
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
  /** Ends the process group (see the guarantees); idempotent. */
  end(graceMs: number): Promise<void>;
}

/** Starts a server process; the pool may hand in its own (process tree, orphan record). */
export type SpawnServer = (command: ServerCommand) => Promise<ServerProcess>;

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return `the process was killed by ${exit.signal}`;
  return `the process exited with code ${exit.code ?? 'unknown'}`;
}

export const spawnServer: SpawnServer = (command) =>
  new Promise<ServerProcess>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command.command, [...(command.args ?? [])], {
        cwd: command.cwd,
        env: { ...(command.baseEnv ?? process.env), ...command.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: POSIX,
        shell: false,
        windowsHide: true,
      });
    } catch (err) {
      reject(spawnError(command, err));
      return;
    }
    child.once('error', (err) => reject(spawnError(command, err)));
    child.once('spawn', () => resolve(new GroupProcess(child)));
  });

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

class GroupProcess implements ServerProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  #exit: ExitInfo | undefined;
  readonly #exitListeners: Array<(exit: ExitInfo) => void> = [];
  readonly #stderr: string[] = [];
  #partial = '';
  #ending: Promise<void> | undefined;
  readonly #child: ChildProcess;

  constructor(child: ChildProcess) {
    this.#child = child;
    this.pid = child.pid!;
    this.stdin = child.stdin!;
    this.stdout = child.stdout!;
    // Writes after the server died fail with EPIPE: the exit is reported, not the pipe.
    this.stdin.on('error', () => undefined);
    this.stdout.on('error', () => undefined);
    child.on('error', () => undefined);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => this.#pushStderr(text));
    child.stderr?.on('error', () => undefined);
    child.once('exit', (code, signal) => {
      this.#exit = { code, signal };
      for (const listener of this.#exitListeners.splice(0)) listener(this.#exit);
    });
  }

  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  onExit(listener: (exit: ExitInfo) => void): void {
    if (this.#exit) listener(this.#exit);
    else this.#exitListeners.push(listener);
  }

  stderrTail(): string[] {
    return this.#partial ? [...this.#stderr, this.#partial] : [...this.#stderr];
  }

  end(graceMs: number): Promise<void> {
    this.#ending ??= this.#end(graceMs);
    return this.#ending;
  }

  async #end(graceMs: number): Promise<void> {
    try {
      this.stdin.end();
    } catch {
      // Already closed.
    }
    const gone = (): boolean => this.#exit !== undefined && (!POSIX || !groupAlive(this.pid));
    if (!gone()) {
      this.#signal('SIGTERM');
      if (!(await waitFor(gone, graceMs))) {
        this.#signal('SIGKILL');
        await waitFor(gone, REAP_WAIT_MS);
      }
    }
    this.stdout.destroy();
    this.#child.stderr?.destroy();
  }

  #signal(signal: NodeJS.Signals): void {
    try {
      if (POSIX && this.pid > 1 && this.pid !== process.pid) process.kill(-this.pid, signal);
      else this.#child.kill(signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  #pushStderr(text: string): void {
    const parts = (this.#partial + text).split(/\r?\n/);
    this.#partial = (parts.pop() ?? '').slice(0, STDERR_LINE_CHARS);
    for (const line of parts) this.#stderr.push(line.slice(0, STDERR_LINE_CHARS));
    if (this.#stderr.length > STDERR_LINES)
      this.#stderr.splice(0, this.#stderr.length - STDERR_LINES);
  }
}

/** True while any process (zombies included) is in the group. */
export function groupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1 || pgid === process.pid) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls until `condition` holds or `timeoutMs` passed; resolves whether it held. */
export async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  intervalMs = 15,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    const left = until - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}
