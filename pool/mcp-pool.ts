/**
 * The pool of MCP connections (the `Pool` of types.ts): the lifecycle of pool.ts over
 * McpConnections (connection.ts), keyed and checked as MCP servers are, and the agents' ways
 * to a live one by its key.
 *
 * Guarantees (beyond pool.ts's and connection.ts's):
 * - Keys: the connectionId, or `${connectionId}@${sessionId}` for `shared: false`, so equal
 *   configs share one connection (one pid) and unshared ones get one per session.
 * - A ticket is accepted only if its connectionId is the one of its config, workspace and
 *   environment (so a key always describes what runs under it, where and with which variables:
 *   sessions of two workspaces never share a stdio process that runs in one of them, nor two
 *   agents' sessions one started in the variables of one of them).
 * - `request` and `attach` reach a connection only while it is live (ready or draining).
 */
import { connectionIdOf, MCP_SERVER } from '../api/index.js';
import { createConnector } from './connector.js';
import { McpConnection } from './connection.js';
import { messageOf, NotLiveError } from './errors.js';
import type { AuthPort } from './auth-port.js';
import { ProcessRecorder, recordingHooks } from '../proc/index.js';
import { ConnectionPool } from './pool.js';
import type { AdmissionTicket } from './ticket.js';
import { DEFAULT_TRAFFIC_LIMITS, TrafficGuard, type TrafficLimits } from './traffic.js';
import type { Connector, Holder, Pool } from './types.js';

export interface PoolOptions {
  /** Opens connections. Default: the SDK's real transports (createConnector). */
  readonly connector?: Connector;
  /** ms an entry with no refs stays open for a re-acquire. Default 30 000. */
  readonly drainDelayMs?: number;
  /**
   * The idle stop of every server whose entry sets no `idleStopMs` of its own (pool.ts); 0:
   * kept while held. Default 0 (the daemon passes its own default).
   */
  readonly idleStopMs?: number;
  /**
   * Where server processes are recorded for reapOrphans() (proc/orphans.ts): the daemon's one
   * recorder, shared with the language-server pool. Default: no record.
   */
  readonly recorder?: ProcessRecorder;
  /**
   * A file for a recorder of this pool's own (ignored when `recorder` is given). Reap the file
   * of the previous run (`reapOrphans(stateFile)`) before creating the pool: the pool's first
   * write replaces it.
   */
  readonly stateFile?: string;
  /** stdio close grace (after ending stdin, and after SIGTERM). Default 1000. */
  readonly graceMs?: number;
  /** The clock for `startedAt` (ms since the epoch). Default Date.now. */
  readonly now?: () => number;
  /** Problems that fail nothing but someone should see (state file, throwing callbacks). */
  readonly onWarning?: (message: string) => void;
  /** Per-connection budgets (default DEFAULT_TRAFFIC_LIMITS); tests use small ones. */
  readonly trafficLimits?: TrafficLimits;
  /** OAuth grants of remote servers, shared by every connection (default: no OAuth). */
  readonly auth?: AuthPort;
  /** Set in every stdio server's environment, over its session's (see ConnectorOptions). */
  readonly serverEnv?: Readonly<Record<string, string>>;
}

export function createPool(options: PoolOptions = {}): Pool {
  const warn = options.onWarning ?? (() => undefined);
  const trafficLimits = options.trafficLimits ?? DEFAULT_TRAFFIC_LIMITS;
  const recorder =
    options.recorder ??
    (options.stateFile !== undefined ? new ProcessRecorder(options.stateFile, warn) : undefined);
  const connector =
    options.connector ??
    createConnector({
      graceMs: options.graceMs,
      // The server and each descendant that left its group are reaped after a hard kill too.
      ...(recorder && {
        processes: (ticket: AdmissionTicket) =>
          recordingHooks(recorder, {
            kind: MCP_SERVER,
            connectionId: ticket.connectionId,
            ...(ticket.config.command !== undefined ? { command: ticket.config.command } : {}),
          }),
      }),
      traffic: () => new TrafficGuard(trafficLimits),
      ...(options.auth ? { auth: options.auth } : {}),
      ...(options.serverEnv ? { serverEnv: options.serverEnv } : {}),
    });
  const deps = {
    connector,
    recorder,
    trafficLimits,
    // (The default connector needs at most two graces plus its 3 s reap wait.)
    abandonAfterMs: 2 * (options.graceMs ?? 1000) + 4000,
    warn,
  };
  const connections = new ConnectionPool<AdmissionTicket, Holder, McpConnection>({
    keyOf,
    refuse,
    make: (ticket, key, host) => new McpConnection(ticket, key, host, deps),
    ...(options.drainDelayMs !== undefined ? { drainDelayMs: options.drainDelayMs } : {}),
    idleStopMs: (ticket: AdmissionTicket) => idleStopOf(ticket.config, options.idleStopMs ?? 0),
    now: options.now ?? Date.now,
    warn,
  });

  function live(key: string): McpConnection {
    const connection = connections.live(key);
    if (!connection) throw new NotLiveError(key);
    return connection;
  }

  return {
    acquire: (ticket, holder, acquireOptions) =>
      connections.acquire(ticket, holder, acquireOptions),
    release: (key, sessionId, releaseOptions) =>
      connections.release(key, sessionId, releaseOptions),
    releaseSession: (sessionId) => connections.releaseSession(sessionId),
    request(key, message, requestOptions) {
      const connection = connections.live(key);
      if (!connection) return Promise.reject(new NotLiveError(key));
      return connection.request(message, requestOptions);
    },
    attach: (key, agent) => live(key).attach(agent),
    stats: () => connections.stats(),
    has: (key) => connections.has(key),
    close: () => connections.close(),
  };
}

/** A server's idle stop: its entry's own, else the pool's default (0: kept while held). */
export function idleStopOf(config: { readonly idleStopMs?: number }, fallback: number): number {
  return config.idleStopMs ?? fallback;
}

/** The pool key of a ticket (the reconciler names an idle server's entry by it too). */
export function keyOf(ticket: AdmissionTicket): string {
  return ticket.config.shared === false
    ? `${ticket.connectionId}@${ticket.sessionId}`
    : ticket.connectionId;
}

/** Why the ticket's connectionId does not describe what would run under it; else undefined. */
function refuse(ticket: AdmissionTicket): string | undefined {
  let expected: string;
  try {
    expected = connectionIdOf(ticket.name, ticket.config, ticket.cwd, ticket.env);
  } catch (err) {
    return `server "${ticket.name}": ${messageOf(err)}`;
  }
  if (expected === ticket.connectionId) return undefined;
  return `server "${ticket.name}": ticket connectionId ${ticket.connectionId} does not match its config (${expected})`;
}
