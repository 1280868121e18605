/**
 * The pool of language server connections: pool/pool.ts's lifecycle (keys, refcounts,
 * single-flight, drain, close) over LspConnections (lsp/connection.ts), as mcp-pool.ts is over
 * McpConnections. The daemon owns one for every session.
 *
 * Guarantees (beyond pool.ts's and connection.ts's):
 * - It accepts only a LanguageServerTicket (made by admission alone), only for the session it
 *   was made for, and only when its connectionId is the one of its entry, workspace folder and
 *   environment: a key always describes what runs under it, so two sessions share a process only
 *   when they would start the same one (one workspace folder, one agent environment).
 * - The key is the connectionId: two sessions of one workspace folder get one process, two
 *   folders two.
 * - A loss (exit, crash) reaches every holder through `onLost`, after the process group ended.
 * - Documents survive a crash: the next connection of the same key (the restart) opens the
 *   documents the lost one had open before its first lease is handed out. Bounded: the paths
 *   are what the lost one had open (its document limit caps them), taken once, for the last
 *   `CARRIED_KEYS_KEPT` keys lost; a file that vanished or cannot be read is skipped, never
 *   failing the restart.
 * - `stats()` entries say `kind: 'languageServer'`, beside the MCP pool's.
 * - `close()` ends every language server process (process groups gone); `mcpctl stop` leaves
 *   none.
 */
import { LANGUAGE_SERVER, lspConnectionIdOf } from '../api/index.js';
import { LspConnection, type LspServerOptions } from '../lsp/connection.js';
import type { SpawnServer } from '../lsp/server-process.js';
import { ConnectionPool, type ConnectionStats } from './pool.js';
import type { LanguageServerTicket } from './ticket.js';
import type { AcquireOptions, Holder, ReleaseOptions } from './types.js';
import { recordingHooks, type LinesSince, type ProcessRecorder } from '../proc/index.js';

/** A session's hold on one language server process. */
export interface LanguageServerLease {
  /** The pool key (the connectionId). */
  readonly key: string;
  readonly connectionId: string;
  readonly pid: number | undefined;
  readonly startedAt: Date;
  /** The connection every agent session of its workspace folder shares. */
  readonly connection: LspConnection;
  stderrTail(): readonly string[];
  stderrSince(seq: number): LinesSince;
}

export type LspPoolStats = ConnectionStats & ReturnType<LspConnection['stats']>;

export interface LspPool {
  /** An abort of `options.signal` while it waits lets go as a `config` release (pool.ts). */
  acquire(
    ticket: LanguageServerTicket,
    holder: Holder,
    options?: AcquireOptions,
  ): Promise<LanguageServerLease>;
  release(key: string, sessionId: string, options: ReleaseOptions): void;
  releaseSession(sessionId: string): void;
  /** The connection of `key` while it is served (ready or draining). */
  live(key: string): LspConnection | undefined;
  stats(): LspPoolStats[];
  close(): Promise<void>;
}

export interface LspPoolOptions {
  /** ms an unused server stays for a re-acquire (default 30 000, as MCP servers). */
  readonly drainDelayMs?: number;
  readonly now?: () => number;
  /** Problems that fail nothing (callbacks that throw). */
  readonly onWarning?: (message: string) => void;
  /** Set in every language server's environment over its session's (the daemon's marks). */
  readonly serverEnv?: Readonly<Record<string, string>>;
  /** Starts a process (tests count spawns); default lsp/'s own process group. */
  readonly spawn?: SpawnServer;
  /** After SIGTERM to a group, how long before SIGKILL (lsp/ default 1 s). */
  readonly killGraceMs?: number;
  /**
   * The daemon's one record of its server processes (proc/orphans.ts): every language server
   * and each descendant that leaves its group is written there, so a daemon killed hard has
   * them reaped at its next start, like MCP servers.
   */
  readonly processes?: ProcessRecorder;
}

/** How the client starts the server of `ticket`. */
export function serverOptionsOf(
  ticket: LanguageServerTicket,
  options: Pick<LspPoolOptions, 'serverEnv' | 'killGraceMs'> = {},
): LspServerOptions {
  const c = ticket.config;
  return {
    name: ticket.name,
    // Admission mints no ticket without a command.
    command: c.command ?? '',
    ...(c.args ? { args: c.args } : {}),
    ...(c.env ? { env: c.env } : {}),
    baseEnv: options.serverEnv ? { ...ticket.env.vars, ...options.serverEnv } : ticket.env.vars,
    workspaceFolder: ticket.workspaceFolder,
    extensionToLanguage: c.extensionToLanguage ?? {},
    ...(c.initializationOptions !== undefined
      ? { initializationOptions: c.initializationOptions }
      : {}),
    ...(c.settings !== undefined ? { settings: c.settings } : {}),
    ...(c.startupTimeout !== undefined ? { startupTimeoutMs: c.startupTimeout } : {}),
    ...(c.shutdownTimeout !== undefined ? { shutdownTimeoutMs: c.shutdownTimeout } : {}),
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
  };
}

/** Why the ticket's connectionId does not describe what would run under it; else undefined. */
function refuse(ticket: LanguageServerTicket): string | undefined {
  const expected = lspConnectionIdOf(
    ticket.name,
    ticket.config,
    ticket.workspaceFolder,
    ticket.env,
  );
  if (expected === ticket.connectionId) return undefined;
  return `language server "${ticket.name}": ticket connectionId ${ticket.connectionId} does not match its entry (${expected})`;
}

/** How many lost connections' documents wait for a restart (some are never restarted). */
export const CARRIED_KEYS_KEPT = 32;

/**
 * The documents of lost connections, by key, until the connection that replaces one opens
 * them again (a crash restart is a new connection of the same key).
 */
class CarriedDocuments {
  readonly #paths = new Map<string, readonly string[]>();

  /** `connection` of `key` was lost with these documents open. */
  lost(key: string, connection: LspConnection): void {
    const paths = connection.documents.openPaths();
    this.#paths.delete(key);
    if (paths.length === 0) return;
    this.#paths.set(key, paths);
    for (const oldest of this.#paths.keys()) {
      if (this.#paths.size <= CARRIED_KEYS_KEPT) break;
      this.#paths.delete(oldest);
    }
  }

  /** Opens on `connection` what the lost connection of `key` had open, once. */
  async reopen(key: string, connection: LspConnection): Promise<void> {
    const paths = this.#paths.get(key);
    if (!paths) return;
    this.#paths.delete(key);
    // reopen() skips files that are gone or unreadable; nothing here fails the restart.
    await connection.documents.reopen(paths).catch(() => undefined);
  }
}

export function createLspPool(options: LspPoolOptions = {}): LspPool {
  const warn = options.onWarning ?? (() => undefined);
  const carried = new CarriedDocuments();
  const connections = new ConnectionPool<LanguageServerTicket, Holder, LspConnection>({
    keyOf: (ticket) => ticket.connectionId,
    refuse,
    make: (ticket, key, host) => {
      const connection: LspConnection = new LspConnection(serverOptionsOf(ticket, options), {
        onLost: (reason) => {
          carried.lost(key, connection);
          host.lost(reason, 'failed');
        },
        ...(options.spawn ? { spawn: options.spawn } : {}),
        ...(options.processes
          ? {
              processes: recordingHooks(options.processes, {
                kind: LANGUAGE_SERVER,
                connectionId: ticket.connectionId,
                ...(ticket.config.command !== undefined ? { command: ticket.config.command } : {}),
              }),
            }
          : {}),
      });
      return connection;
    },
    ...(options.drainDelayMs !== undefined ? { drainDelayMs: options.drainDelayMs } : {}),
    now: options.now ?? Date.now,
    warn,
  });
  return {
    async acquire(ticket, holder, acquireOptions) {
      const { connection, startedAt } = await connections.acquire(ticket, holder, acquireOptions);
      await carried.reopen(ticket.connectionId, connection);
      return {
        key: ticket.connectionId,
        connectionId: ticket.connectionId,
        get pid() {
          return connection.pid;
        },
        startedAt,
        connection,
        stderrTail: () => connection.stderrTail(),
        stderrSince: (seq) => connection.stderrSince(seq),
      };
    },
    release: (key, sessionId, releaseOptions) =>
      connections.release(key, sessionId, releaseOptions),
    releaseSession: (sessionId) => connections.releaseSession(sessionId),
    live: (key) => connections.live(key),
    stats: () => connections.stats(),
    close: () => connections.close(),
  };
}
