/**
 * `mcpctl daemon`: the foreground daemon process around the daemon core.
 *
 * Guarantees:
 * - The socket directory is private (0700, ours, not group/world writable) or the daemon does
 *   not start; the socket is 0600. A live daemon at the socket → exit 1 ("a daemon is already
 *   running at <socket>"); a stale socket file (nobody answers) is replaced; anything else at
 *   that path is left alone and refused.
 * - The socket is claimed before anything else happens (two daemons racing: one wins, the
 *   other exits 1, also when both found a stale socket file: they take turns, claim-lock.ts);
 *   calls arriving during start-up wait until the default session is open.
 * - The `--http` address is bound next, before any session opens (http-port-hold.ts): a port in
 *   use is exit 1 naming the address, with no server spawned.
 * - The socket file is checked every second: deleted, it is made again (connections, sessions
 *   and servers untouched); replaced by anything else (another daemon's socket), the daemon
 *   shuts down gracefully, since clients now reach that (socket-guard.ts).
 * - SIGTERM, SIGINT, `mcpctl stop` and `mcpctl restart` shut down gracefully: tell every
 *   agent's serve whether to come back at once (restart, socket lost, fatal error) or at its
 *   agent's next request (stop, signals), stop watching, drain the queues, close every
 *   connection (process groups gone), remove the socket, exit 0. A second signal
 *   during that exits at once (1); the next start reaps what is left.
 * - Logs are structured JSON lines on stderr (pino), written synchronously so the last lines
 *   survive a crash.
 */
import { sessionFlagsOf, type SessionFlags } from '../api/index.js';
import { unlinkSync, writeSync } from 'node:fs';
import pino from 'pino';
import { Daemon, type SessionEnvSpec } from '../controller/daemon.js';
import { claimLock } from './rpc/claim-lock.js';
import { CliError, EXIT_USAGE, messageOf } from './errors.js';
import { handoverTable, mapDomainError, methodTable, type MethodContext } from './methods/index.js';
import { RpcLimitsError, limitsFromEnv, type RpcLimits } from './rpc/limits.js';
import { RpcServer } from './rpc/server.js';
import { guardSocketFile } from './rpc/socket-guard.js';
import {
  SocketDirError,
  homeDirectory,
  prepareSocketDir,
  probeSocket,
  catalogDirOf,
  stateFileOf,
} from './rpc/socket-path.js';
import type { ReconnectMode } from './rpc/protocol.js';
import { StopNotices, type StopNotice } from './rpc/stop-notices.js';
import { VERSION } from './version.js';
import { logLine } from './output/log-lines.js';
import { styleFor } from './output/style.js';
import { startHttp, type HttpServeOptions } from './http/serve-http.js';
import { holdHttpPort, type HttpPortHold } from './http-port-hold.js';

/** pino's lines as readable ones on stderr, written synchronously like the JSON ones. */
function textDestination(): { write(chunk: string): void } {
  const style = styleFor(process.stderr);
  return {
    write: (chunk) => {
      for (const line of chunk.split('\n')) if (line !== '') writeSync(2, logLine(line, style));
    },
  };
}

/** How often the socket file is checked (a deleted one is made again; see socket-guard.ts). */
const SOCKET_CHECK_INTERVAL_MS = 1000;

/** The flags (SessionFlags, paths absolute) are the default session's. */
export interface DaemonCommandOptions extends SessionFlags {
  readonly socket: string;
  readonly debounceMs: number;
  readonly drainDelayMs?: number;
  /** `--idle-stop` (0: every server runs while held). */
  readonly idleStopMs?: number;
  readonly logLevel?: string;
  /** `text`: one readable line per event (output/log-lines.ts); default `json` (pino's lines). */
  readonly logFormat?: 'text' | 'json';
  /** The default session's environment when it is not the daemon's (`--env-from-stdin`). */
  readonly defaultSessionEnv?: SessionEnvSpec;
  /** Set in every server's environment over its session's (the daemon's marks). */
  readonly serverEnv?: Readonly<Record<string, string>>;
  /** `--http`: also serve MCP Streamable HTTP (cli/http/). */
  readonly http?: HttpServeOptions;
}

/** Runs the daemon until it is stopped; resolves with the exit code. */
export async function runDaemon(o: DaemonCommandOptions): Promise<number> {
  const limits = socketLimits();
  const home = homeDirectory();
  const log = pino(
    { name: 'mcpctl', level: o.logLevel ?? process.env.MCPCTL_LOG_LEVEL ?? 'info' },
    o.logFormat === 'text' ? textDestination() : pino.destination({ dest: 2, sync: true }),
  );
  // From the probe to listening, one daemon at a time (claim-lock.ts).
  const releaseClaim = await claimSocketPath(o.socket, log);

  let daemon: Daemon | undefined;
  let markReady: () => void = () => undefined;
  let failReady: (err: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined); // Calls waiting on it get the error; nobody else needs it.

  let requestStop: (reason: string, reconnect?: ReconnectMode) => void = () => undefined;
  const stopRequested = new Promise<StopNotice>(
    (resolve) =>
      (requestStop = (reason, reconnect = 'on-demand') => resolve({ reason, reconnect })),
  );
  const stopNotices = new StopNotices();
  const ctx: MethodContext = {
    get daemon(): Daemon {
      // Methods run only after `ready`, so the daemon exists by then.
      if (!daemon) throw new Error('the daemon is still starting');
      return daemon;
    },
    socketPath: o.socket,
    version: VERSION,
    requestStop: (reason, reconnect) => requestStop(reason, reconnect),
    stopNotices,
    log: (message) => log.warn({}, message),
  };
  const server = new RpcServer({
    methods: methodTable(ctx),
    handovers: handoverTable(ctx),
    ready,
    log,
    mapError: mapDomainError,
    limits,
  });
  try {
    await server.listen(o.socket);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CliError(
        `a daemon is already running at ${o.socket}; stop it with 'mcpctl stop' or pass another --socket`,
      );
    throw new CliError(`cannot listen on ${o.socket}: ${messageOf(err)}`);
  } finally {
    releaseClaim();
  }
  // Before any session opens: a port in use fails the start with no server spawned.
  let httpHold: HttpPortHold | undefined;
  if (o.http) {
    try {
      httpHold = await holdHttpPort(o.http);
    } catch (err) {
      await server.close();
      throw err;
    }
  }

  // A deleted socket file is made again; a path taken by someone else stops this daemon.
  const stopGuard = guardSocketFile({
    server,
    intervalMs: SOCKET_CHECK_INTERVAL_MS,
    log,
    onLost: (reason) => {
      log.warn({ socket: o.socket }, `${reason}; shutting down`);
      // Another daemon answers there now: the agents reconnect to it at once.
      requestStop('socket path lost', 'now');
    },
  });

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn(
        { signal },
        'second signal while stopping: exiting now; the next start reaps leftover servers',
      );
      process.exit(1);
    }
    requestStop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const onFatal = (err: unknown) => {
    log.fatal({ err: messageOf(err) }, 'unexpected error; shutting down');
    process.exitCode = 1;
    requestStop('fatal error', 'now');
  };
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);

  try {
    daemon = await Daemon.start({
      ...sessionFlagsOf(o),
      home,
      debounceMs: o.debounceMs,
      ...(o.drainDelayMs === undefined ? {} : { drainDelayMs: o.drainDelayMs }),
      ...(o.idleStopMs === undefined ? {} : { idleStopMs: o.idleStopMs }),
      ...(o.defaultSessionEnv ? { defaultSessionEnv: o.defaultSessionEnv } : {}),
      ...(o.serverEnv ? { serverEnv: o.serverEnv } : {}),
      stateFile: stateFileOf(o.socket),
      catalogDir: catalogDirOf(o.socket),
      log,
    });
  } catch (err) {
    failReady(err);
    stopGuard();
    await httpHold?.release();
    await server.close();
    removeHandlers();
    throw new CliError(`cannot start the daemon: ${messageOf(err)}`);
  }
  markReady();
  let http: { close(): Promise<void> } | undefined;
  if (o.http) {
    try {
      await httpHold?.release();
      http = await startHttp(o.http, { daemon, limits, version: VERSION, log });
    } catch (err) {
      stopGuard();
      await daemon.stop();
      await server.close();
      removeHandlers();
      throw err;
    }
  }
  log.info(
    {
      socket: o.socket,
      workspace: daemon.defaultSession.workspace,
      ceiling: o.ceiling ?? null,
      reaped: daemon.reaped.killed,
    },
    'listening',
  );

  const notice = await stopRequested;
  stopping = true;
  stopGuard();
  log.info({ reason: notice.reason, reconnect: notice.reconnect }, 'shutting down');
  // Before anything closes: each agent's serve learns whether to come back at once.
  await stopNotices.announce(notice);
  // Agents over HTTP next: their sessions are let go before the daemon closes them all.
  await http?.close();
  await daemon.stop();
  await server.close();
  removeHandlers();
  log.info({}, 'bye');
  return typeof process.exitCode === 'number' ? process.exitCode : 0;

  function removeHandlers(): void {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('uncaughtException', onFatal);
    process.off('unhandledRejection', onFatal);
  }
}

/** The socket's limits: the defaults, lowered by MCPCTL_RPC_LIMITS (tests). */
function socketLimits(): RpcLimits {
  try {
    return limitsFromEnv(process.env);
  } catch (err) {
    if (err instanceof RpcLimitsError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
}

/**
 * Makes the socket path ours to listen on, or says why it cannot be. Resolves with the function
 * that gives the claim lock back (call it once listening, or on failure to listen).
 */
async function claimSocketPath(socket: string, log: pino.Logger): Promise<() => void> {
  try {
    prepareSocketDir(socket);
  } catch (err) {
    if (err instanceof SocketDirError) throw new CliError(err.message);
    throw err;
  }
  const release = await claimLock(socket);
  try {
    await removeStaleSocket(socket, log);
  } catch (err) {
    release();
    throw err;
  }
  return release;
}

async function removeStaleSocket(socket: string, log: pino.Logger): Promise<void> {
  switch (await probeSocket(socket)) {
    case 'missing':
      return;
    case 'live':
      throw new CliError(
        `a daemon is already running at ${socket}; stop it with 'mcpctl stop' or pass another --socket`,
      );
    case 'notSocket':
      throw new CliError(
        `${socket} exists and is not a socket; remove it or pass another --socket`,
      );
    case 'stale':
      log.info({ socket }, 'replacing a stale socket left by a daemon that did not stop cleanly');
      try {
        unlinkSync(socket);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
          throw new CliError(`cannot remove stale socket ${socket}: ${messageOf(err)}`);
      }
  }
}
