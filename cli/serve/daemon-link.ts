/**
 * Reaching the daemon from `mcpctl serve` (and `mcpctl login`): connect to the socket, or start
 * a daemon and wait for it to answer.
 *
 * Guarantees:
 * - A daemon that answers is used as it is (whatever workspace it was started for).
 * - Otherwise `mcpctl daemon` is started with serve's workspace, ceiling, --mcp-config and
 *   debounce, detached (its own process group, stdout and stderr appended to
 *   `mcpctl-daemon.log` next to the socket, unref'd): it outlives this process and never
 *   writes to our stdout, which belongs to MCP.
 * - Its process environment is a minimal one (daemon-env.ts), not ours: the daemon serves other
 *   agents after we are gone. Our environment goes to it on its stdin, once, as its default
 *   session's (the session we open then joins that one).
 * - Two serves racing to start one end up on the same daemon: the loser's daemon finds the
 *   socket taken and exits, and both keep trying to connect until the winner answers. Only
 *   the serve whose own daemon is the one answering says it "started an mcpctl daemon"; the
 *   other names the daemon it uses.
 * - Waiting is bounded; the failure says what happened and names the log file, with its last
 *   lines.
 */
import type { SessionFlags } from '../../api/index.js';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, messageOf } from '../errors.js';
import type { Socket } from 'node:net';
import { DEFAULT_ANSWER_TIMEOUT_MS } from '../answer-timeout.js';
import {
  DaemonUnavailableError,
  connectClient,
  connectSocket,
  type RpcClient,
} from '../rpc/client.js';
import { SocketDirError, daemonLogPath, prepareSocketDir } from '../rpc/socket-path.js';
import { daemonProcessEnv, ownEnv, starterEnvDocument } from './daemon-env.js';
import { INSIDE_MCPCTL_ENV } from '../agent/inert-port.js';
import { ProgressLine, type ProgressSink } from '../progress.js';

/** The built CLI entry (cli/main.js), relative to this file (cli/serve/daemon-link.js). */
const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));

const LOG_TAIL_LINES = 8;

/**
 * The flags (SessionFlags) are the started daemon's default session: serve's own workspace,
 * ceiling and --mcp-config, so that session is the one serve opens (never a second, wider one
 * that would start servers outside serve's ceiling) and the one `mcpctl get servers` in that
 * folder shows.
 */
export interface DaemonLinkOptions extends SessionFlags {
  readonly socket: string;
  readonly debounceMs?: number;
  /** Who starts it, for the failure message. Default `mcpctl serve`. */
  readonly command?: string;
  /** How long to wait for a started daemon to answer. Default 20 s. */
  readonly startTimeoutMs?: number;
  /** How long a daemon that says nothing is waited for (answer-timeout.ts). Default 10 s. */
  readonly answerTimeoutMs?: number;
  readonly log: (message: string) => void;
  /**
   * Where "starting the mcpctl daemon… 2s" is drawn while a started daemon is waited for (a
   * terminal only, output/progress.ts). Default: nowhere.
   */
  readonly progress?: ProgressSink;
}

/** Connects to the daemon at `socket`, starting one first when nobody answers there. */
export async function connectOrStartDaemon(o: DaemonLinkOptions): Promise<Socket> {
  try {
    return await connectSocket(o.socket, 2000);
  } catch (err) {
    if (!(err instanceof DaemonUnavailableError)) throw err;
    if (err.code === 'EACCES')
      throw new CliError(
        `permission denied connecting to ${o.socket}; the daemon there belongs to another user. Pass your own --socket`,
      );
    // A daemon is there, but its queue of new connections is full (it accepts none): starting
    // another one would only find the socket taken.
    if (err.code === 'EAGAIN') throw err;
  }
  return startDaemon(o);
}

async function startDaemon(o: DaemonLinkOptions): Promise<Socket> {
  try {
    prepareSocketDir(o.socket);
  } catch (err) {
    if (err instanceof SocketDirError) throw new CliError(err.message);
    throw err;
  }
  const logFile = daemonLogPath(o.socket);
  const args = [
    MAIN,
    'daemon',
    '--socket',
    o.socket,
    '--workspace',
    o.workspace,
    '--env-from-stdin',
  ];
  if (o.ceiling) args.push(`--allowed-mcp-server-names=${o.ceiling.join(',')}`);
  if (o.mcpConfigPath !== undefined) args.push('--mcp-config', o.mcpConfigPath);
  if (o.lspCeiling) args.push(`--allowed-lsp-server-names=${o.lspCeiling.join(',')}`);
  if (o.lspConfigPath !== undefined) args.push('--lsp-config', o.lspConfigPath);
  if (o.debounceMs !== undefined) args.push('--debounce-ms', String(o.debounceMs));
  const fd = openSync(logFile, 'a', 0o600);
  // Written by the child's events while we poll (an object, so the reads below see them).
  const child: { pid?: number; exit?: string } = {};
  try {
    const proc = spawn(process.execPath, args, {
      detached: true,
      stdio: ['pipe', fd, fd],
      // Not the workspace: a daemon shared by many workspaces must not pin one as its cwd.
      cwd: path.dirname(o.socket),
      // Not ours (see the guarantees). The mark goes to its servers: a `mcpctl serve` among
      // them knows not to proxy mcpctl.
      env: {
        ...daemonProcessEnv(process.env),
        [INSIDE_MCPCTL_ENV]: `the mcpctl daemon at ${o.socket}`,
      },
    });
    child.pid = proc.pid;
    // A daemon that exits before reading (it lost a start race) closes the pipe: not an error.
    proc.stdin?.on('error', () => undefined);
    proc.stdin?.end(starterEnvDocument({ label: starterLabel(o.command), vars: ownEnv() }));
    proc.once('error', (err) => (child.exit = `could not be started: ${err.message}`));
    proc.once('exit', (code, signal) => (child.exit = `exited with ${signal ?? `code ${code}`}`));
    proc.unref();
  } finally {
    closeSync(fd); // The child has its own copy.
  }

  const line = new ProgressLine(o.progress ?? { isTTY: false, write: () => undefined });
  line.start(`starting the mcpctl daemon (pid ${child.pid ?? '?'}) at ${o.socket}`);
  try {
    return await awaitStarted(o, child, logFile);
  } finally {
    line.stop();
  }
}

/** Polls the socket until the started daemon (or a racer's) answers, or gives up saying why. */
async function awaitStarted(
  o: DaemonLinkOptions,
  child: { pid?: number; exit?: string },
  logFile: string,
): Promise<Socket> {
  const deadline = Date.now() + (o.startTimeoutMs ?? 20_000);
  let exitSeenAt: number | undefined;
  let lastError: unknown;
  for (;;) {
    let socket: Socket | undefined;
    try {
      socket = await connectSocket(o.socket, 1000);
    } catch (err) {
      lastError = err;
    }
    if (socket) {
      await sayWhoAnswers(o, child, logFile);
      return socket;
    }
    const now = Date.now();
    // An exit is not yet a failure: the child may have lost a start race to a daemon that
    // is still coming up. Give the winner a moment before giving up.
    if (child.exit !== undefined) exitSeenAt ??= now;
    const gaveUp = exitSeenAt !== undefined && now - exitSeenAt > 3000;
    if (gaveUp || now > deadline) {
      const what = child.exit
        ? `the mcpctl daemon it started (pid ${child.pid}) ${child.exit}`
        : `the mcpctl daemon it started (pid ${child.pid}) did not answer within ${Math.round((o.startTimeoutMs ?? 20_000) / 1000)} s (${messageOf(lastError)})`;
      throw new CliError(
        `${o.command ?? 'mcpctl serve'} found no daemon at ${o.socket}, and ${what}; see its log ${logFile}${tail(logFile)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whose environment the default session has: "serve pid 4242", as `get sessions` shows it. */
function starterLabel(command: string | undefined): string {
  return `${(command ?? 'mcpctl serve').replace(/^mcpctl /, '')} pid ${process.pid}`;
}

/**
 * Says which daemon answers: the one we started only when it is the one that answers (a
 * daemon that lost a start race exits at once, so every racer saying "started" would be
 * false for all but one). Asked on a connection of its own; saying nothing beats a guess.
 */
async function sayWhoAnswers(
  o: DaemonLinkOptions,
  child: { pid?: number; exit?: string },
  logFile: string,
): Promise<void> {
  let pid: number | undefined;
  let client: RpcClient | undefined;
  try {
    client = await connectClient(o.socket, 1000, {
      answerTimeoutMs: o.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS,
    });
    const status = await client.call<{ pid?: unknown }>('daemon.status');
    if (typeof status.pid === 'number') pid = status.pid;
  } catch {
    return; // What it is will show when serve uses the connection.
  } finally {
    await client?.close().catch(() => undefined);
  }
  if (pid === undefined) return;
  if (pid === child.pid && child.exit === undefined)
    o.log(`started an mcpctl daemon (pid ${pid}) at ${o.socket}; it logs to ${logFile}`);
  else
    o.log(
      `using the mcpctl daemon (pid ${pid}) at ${o.socket}, which another process started meanwhile`,
    );
}

function tail(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-LOG_TAIL_LINES);
    return lines.length && lines[0] !== '' ? `; its last lines:\n${lines.join('\n')}` : '';
  } catch {
    return '';
  }
}
