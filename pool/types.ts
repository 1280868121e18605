/**
 * The pool's public surface. Reconcilers depend on this interface only, so tests and the bench
 * can drive a pool whose connector uses in-memory transports.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { AdmissionTicket } from './ticket.js';
import type { FloodReport, TrafficGuard } from './traffic.js';

/** Who holds a lease, and how the pool tells them about the connection's life. */
export interface Holder {
  readonly sessionId: string;
  /**
   * The connection died (exit, transport error); the lease is gone. Called once. `cause`
   * `unauthorized`: the server's OAuth grant is gone (logout, revoked): wait for a login.
   */
  onLost(reason: string, cause?: LostCause): void;
  /** The server's tool or prompt list changed and was re-listed. */
  onListChanged?(): void;
  /**
   * The connection started or stopped flooding, or its report was renewed (see traffic.ts:
   * at most once per report interval); read `lease.flooding()` for the report.
   */
  onFlooding?(): void;
}

export type LostCause = 'failed' | 'unauthorized';

/** A holder's view of one live pooled connection. */
export interface Lease {
  /** The pool key: the connectionId, suffixed with the session for `shared: false`. */
  readonly key: string;
  readonly connectionId: string;
  readonly pid: number | undefined;
  readonly startedAt: Date;
  tools(): readonly Tool[];
  prompts(): readonly Prompt[];
  /** Last lines the server wrote to stderr (stdio only). */
  stderrTail(): readonly string[];
  /** What the connection does over its limits now; undefined while it behaves. */
  flooding?(): FloodReport | undefined;
}

export type EntryState = 'connecting' | 'ready' | 'draining' | 'failed' | 'closed';

/**
 * Why a session lets go of a connection. The caller must say, because the two end differently
 * when no other session holds it (DESIGN §5 "Processes really stop"):
 * - `config`: the config says it must not run for this session any more (removed, not
 *   admitted for any reason, the old side of a rolling update, a recreate). It closes at once.
 * - `sessionClosed`: the session ended (its agent went away). It drains for the drain delay,
 *   so an agent that comes back gets the very same process.
 */
export type ReleaseReason = 'config' | 'sessionClosed';

export interface ReleaseOptions {
  readonly reason: ReleaseReason;
}

export interface PoolEntryStats {
  readonly key: string;
  readonly connectionId: string;
  /** The server's name in the config. */
  readonly name: string;
  readonly state: EntryState;
  readonly refs: readonly string[];
  readonly pid: number | undefined;
  /** When the pool began to connect it. */
  readonly createdAt: Date;
  /** When it became ready; undefined while connecting. */
  readonly startedAt: Date | undefined;
  /** While draining: when it closes unless a session acquires it again. */
  readonly drainEndsAt: Date | undefined;
  readonly tools: number;
  readonly prompts: number;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** ms; defaults to the server's configured `timeout`, else 10 minutes. */
  readonly timeout?: number;
}

export interface Pool {
  /** Single-flight per key: concurrent acquires of one key start one connection. */
  acquire(ticket: AdmissionTicket, holder: Holder): Promise<Lease>;
  /**
   * Drops the session's ref. At zero refs: `config` closes the connection now (a connect in
   * progress is cancelled); `sessionClosed` lets it drain for drainDelayMs.
   */
  release(key: string, sessionId: string, options: ReleaseOptions): void;
  /** The session ended: releases every ref and wait of it with reason `sessionClosed`. */
  releaseSession(sessionId: string): void;
  callTool(
    key: string,
    name: string,
    args: Record<string, unknown> | undefined,
    options?: CallOptions,
  ): Promise<CallToolResult>;
  getPrompt(
    key: string,
    name: string,
    args: Record<string, string> | undefined,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
  stats(): PoolEntryStats[];
  /** Closes every connection (process groups gone) and resolves when all are closed. */
  close(): Promise<void>;
}

/** An opened MCP client plus what the pool needs to supervise it. */
export interface Connected {
  readonly client: Client;
  readonly transport: Transport;
  readonly pid: number | undefined;
  stderrTail(): readonly string[];
  /**
   * Whether an error the transport reported means the connection is dead. Absent: every
   * transport error is fatal. Remote transports report recoverable hiccups too (an SSE stream
   * the SDK is about to reopen), which must not cost a reconnect.
   */
  isFatalError?(error: Error): boolean;
  /**
   * Ends the connection completely (stdio: the process group is gone; HTTP: the server's
   * session is ended). Absent: `client.close()`.
   */
  close?(): Promise<void>;
  /**
   * The connection's budgets, when its transport enforces the message budget itself (stdio:
   * before validating a line; also its line budget). Absent: the pool makes a guard and
   * applies the message budget to what the transport delivers. Re-lists: the pool, always.
   */
  readonly traffic?: TrafficGuard;
  /**
   * OAuth servers: `handler` runs when the grant this connection uses is gone (logout, a
   * refused refresh); the connection is useless until someone logs in again.
   */
  onUnauthorized?(handler: () => void): void;
  /** `text` with the connection's credentials (OAuth tokens) hidden. Absent: nothing to hide. */
  scrub?(text: string): string;
}

/**
 * Opens a connection for a ticket (spawn/connect + initialize). The default connector uses the
 * SDK's real transports; tests and the bench inject one built on InMemoryTransport.
 *
 * The pool owns the discovery deadline: it aborts `signal` when `discoveryTimeoutMs` passes
 * (reason: a `DiscoveryDeadline`) or when the connection is no longer wanted (pool closing).
 * On abort a connector must stop, close what it opened (kill the process) and reject; the
 * pool waits a bounded time for that before it reports the failure.
 */
export type Connector = (ticket: AdmissionTicket, signal: AbortSignal) => Promise<Connected>;
