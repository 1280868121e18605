/**
 * The MCP pool's public surface. Reconcilers depend on this interface only, so tests and the
 * bench can drive a pool whose connector uses in-memory transports. (The lifecycle's own words,
 * EntryState, LostCause, ReleaseReason, are pool.ts's.)
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  Implementation,
  LoggingLevel,
  Progress,
  Prompt,
  Root,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  AcquireOptions,
  ConnectionStats,
  EntryState,
  LostCause,
  PoolHolder,
  ReleaseOptions,
  ReleaseReason,
} from './pool.js';
import type { LinesSince } from '../proc/index.js';
import type { AdmissionTicket } from './ticket.js';
import type { FloodReport, OversizedLine, TrafficGuard } from './traffic.js';

export type { AcquireOptions, EntryState, LostCause, LinesSince, ReleaseOptions, ReleaseReason };

/** Who holds a lease, and how the pool tells them about the connection's life. */
export interface Holder extends PoolHolder {
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
  /**
   * The server sent a message over the message limit (stdio), which was dropped; when it was
   * an answer, its request failed with a size error. Once per such message; the connection
   * goes on. (A stream of them is slowed by the traffic budget, so this comes a few per second
   * at most.)
   */
  onOversized?(line: OversizedLine): void;
}

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
  /** Whole stderr lines from sequence number `seq` on (`mcpctl logs -f`; proc/line-tail.ts). */
  stderrSince?(seq: number): LinesSince;
  /** What the connection does over its limits now; undefined while it behaves. */
  flooding?(): FloodReport | undefined;
  /** What the server declared in `initialize`. */
  serverCapabilities?(): ServerCapabilities | undefined;
  serverVersion?(): Implementation | undefined;
  instructions?(): string | undefined;
}

/** An MCP request or notification as it travels: method and params, params untouched. */
export interface McpMessage {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/**
 * One agent connection as the pooled servers it uses see it (gateway/ implements it). A
 * server's requests to its client (sampling, elicitation, roots) and its notifications reach
 * agents through this, so one process shared by several agents answers each the right one.
 */
export interface PoolAgent {
  /** For logs and errors, e.g. `agent 2 of session s-1 (qwen-code 0.24)`. */
  readonly label: string;
  /**
   * The workspace (realpath) of the agent's session, as its session says (never the agent):
   * a server's request or roots never cross from one workspace to another (ask-rules.ts,
   * roots.ts).
   */
  readonly workspace: string;
  /**
   * Whether the agent declared what a server→client request needs: `sampling`,
   * `elicitation` (the form or url mode `params` ask for), `roots`.
   */
  canAnswer(message: McpMessage): boolean;
  /**
   * Forwards a server→client request to the agent; resolves with the agent's result as sent
   * (the SDK checks it against the method's result schema before the server gets it). A
   * rejection reaches the server as an error with its `code` (when numeric) and `message`.
   * `signal` aborts when the server cancels, the connection ends, or another agent answered.
   */
  request(
    message: McpMessage,
    options: { readonly signal: AbortSignal },
  ): Promise<Record<string, unknown>>;
  /** The roots this agent offers servers: its own when it declares `roots`, else its workspace. */
  roots(): readonly Root[];
  /**
   * Whether the agent created the task `taskId` on this connection's server (a task-augmented
   * call whose result named it): a server request that names the task belongs to this agent.
   */
  ownsTask(taskId: string): boolean;
  /**
   * A notification of the server `key` for this agent: `notifications/message`,
   * `notifications/resources/updated` (only for URIs this agent subscribed to on that
   * connection), `notifications/resources/list_changed`, and any other the pool does not
   * handle itself. Progress never comes here (see RequestOptions.onprogress).
   */
  notify(key: string, message: McpMessage): void;
}

/**
 * An agent as the maker of a request (RequestOptions.caller): who it is and how to ask it. One
 * object per agent connection, the same for all its requests (two objects are two agents).
 */
export type PoolCaller = Pick<PoolAgent, 'label' | 'workspace' | 'canAnswer' | 'request'>;

/** What an agent's attachment to one pooled connection can do (Pool.attach). */
export interface Attachment {
  /** The agent's roots changed: the server hears `notifications/roots/list_changed` if the union did. */
  rootsChanged(): void;
  /**
   * Subscribes this agent to `uri` (the server is subscribed once however many agents are).
   * Rejects with the server's error, an RpcError (MethodNotFound) when the server declares no
   * `resources.subscribe`, or a PoolError once detached or the connection ended.
   */
  subscribe(uri: string): Promise<void>;
  /**
   * Drops this agent's subscription; the server is unsubscribed when nobody else has one.
   * Never rejects: the agent hears no more updates of `uri` whatever the server says.
   */
  unsubscribe(uri: string): Promise<void>;
  /**
   * The level this agent wants; the server gets the most verbose level any attached agent wants
   * (nothing is sent when that does not change, or when the server declares no `logging`).
   * Rejects with the server's error, or a PoolError once detached or the connection ended.
   */
  setLogLevel(level: LoggingLevel): Promise<void>;
  /** Ends the attachment: its subscriptions and level go, roots are recomputed. Idempotent. */
  detach(): void;
}

export interface RequestOptions extends CallOptions {
  /**
   * The agent this request is made for: while it is in flight, the server's sampling and
   * elicitation requests on this connection may go to it (the rules: ask-rules.ts).
   */
  readonly caller?: PoolCaller;
  /**
   * The server's progress for this request. The pool sends a progress token of its own (so
   * two agents' tokens never clash on a shared connection) and drops any `progressToken` in
   * the params; progress that comes after the request ended or was cancelled is dropped.
   */
  readonly onprogress?: (progress: Progress) => void;
}

export interface PoolEntryStats extends ConnectionStats {
  readonly tools: number;
  readonly prompts: number;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** ms; defaults to the server's configured `timeout`, else 10 minutes. */
  readonly timeout?: number;
}

export interface Pool {
  /**
   * Single-flight per key: concurrent acquires of one key start one connection. An abort of
   * `options.signal` while it waits lets go as a `config` release (pool.ts).
   */
  acquire(ticket: AdmissionTicket, holder: Holder, options?: AcquireOptions): Promise<Lease>;
  /**
   * Drops the session's ref. At zero refs: `config` closes the connection now (a connect in
   * progress is cancelled); `sessionClosed` lets it drain for drainDelayMs.
   */
  release(key: string, sessionId: string, options: ReleaseOptions): void;
  /** The session ended: releases every ref and wait of it with reason `sessionClosed`. */
  releaseSession(sessionId: string): void;
  /**
   * Sends any MCP request to the live connection of `key` and resolves with the server's result
   * as it sent it (nothing validated away, nothing added; the same object). Errors: the
   * server's McpError (credentials hidden), an McpError RequestTimeout for a timeout or the
   * signal's abort, or a PoolError when `key` is not live (connecting, gone) or the method is
   * one that would change the connection for every agent (`initialize`, `logging/setLevel`,
   * `resources/subscribe`/`unsubscribe`: those go through the Attachment).
   */
  request(
    key: string,
    message: McpMessage,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>>;
  /**
   * Lets `agent` hear the server of `key` and answer its requests, until `detach()` or the
   * connection ends. Throws a PoolError when `key` is not live (also while still connecting:
   * attach once `acquire` resolved). An attachment holds no ref: the session's lease does.
   */
  attach(key: string, agent: PoolAgent): Attachment;
  stats(): PoolEntryStats[];
  /** Whether a connection of `key` is connecting, ready or draining (not failed, not closed). */
  has(key: string): boolean;
  /** Closes every connection (process groups gone) and resolves when all are closed. */
  close(): Promise<void>;
}

/** An opened MCP client plus what the pool needs to supervise it. */
export interface OpenedClient {
  readonly client: Client;
  readonly transport: Transport;
  readonly pid: number | undefined;
  stderrTail(): readonly string[];
  /** Whole stderr lines from sequence number `seq` on (`mcpctl logs -f`; proc/line-tail.ts). */
  stderrSince?(seq: number): LinesSince;
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
 *
 * `setup`, when given, is called on the connection's Client before `connect` (ClientSetup).
 */
export type Connector = (
  ticket: AdmissionTicket,
  signal: AbortSignal,
  setup?: ClientSetup,
) => Promise<OpenedClient>;

/**
 * What the pool does to a connection's new Client before `connect` (a connector calls it, when
 * given, on the Client it made): it declares the client capabilities the pool relays to agents
 * (sampling, elicitation, roots) and installs their handlers, which must be in place before the
 * server hears `initialized` (a server may ask `roots/list` right then). A connector that does
 * not call it gives servers a client that declares none of these.
 */
export type ClientSetup = (client: Client) => void;
