/**
 * What a session is made with and what it tells (session.ts): its options, its events, and
 * its kinds by object kind. Apart from the class so the session's file is its wiring and face.
 */
import type {
  AnyDesiredServer,
  DesiredServer,
  McpServer,
  ServerKind,
  SessionEnv,
  SessionFlags,
} from '../api/index.js';
import type { LANGUAGE_SERVER, MCP_SERVER } from '../api/index.js';
import type { ApprovalSubject, PinStore } from '../approvals/index.js';
import type { createSessionStore } from '../informers/session-store.js';
import type { DesiredState } from '../informers/types.js';
import type { Lease, Pool } from '../pool/types.js';
import type { AdmissionTicket } from '../pool/ticket.js';
import type { McpCatalogs } from '../reconcilers/server-kind.js';
import type { ApprovalStoreLike, SessionApprovalsLike } from './approval-decisions.js';
import type { EventRecorder } from './event-recorder.js';
import type { LspPool } from '../pool/lsp-pool.js';
import type { DiffLine } from './reload-preview.js';
import type { SessionKind } from './session-kind.js';
import type { LanguageServerKind } from './session-language-servers.js';

export interface SessionOptions extends SessionFlags {
  readonly id?: string;
  /**
   * The environment `${VAR}` in configs expands in and stdio servers start in (their `env` on
   * top): the agent's (sent by `mcpctl serve`), else the daemon's own (`process.env`). Never
   * shown; `envLabel` says whose it is.
   */
  readonly env?: SessionEnv;
  /** Whose environment `env` is, for `get sessions -o wide` ("daemon", "serve pid 4242"). */
  readonly envLabel?: string;
  readonly home: string;
  readonly systemSettingsPath?: string;
  readonly pool: Pool;
  /**
   * The language-server pool (the daemon's, shared by every session). Absent: the session makes
   * one of its own and closes it with itself.
   */
  readonly lspPool?: LspPool;
  readonly approvals: ApprovalStoreLike;
  readonly sessionApprovals: SessionApprovalsLike;
  /**
   * The pins MCP servers' tools and prompts are held against (issue #35); the daemon always
   * gives its store. Absent: every listing is served as it comes.
   */
  readonly pins?: PinStore;
  /**
   * Start on demand, stop when idle (issue #34): the catalogs MCP servers are served from while
   * no process runs, and the idle time of a server that sets none (0: kept while held). Absent:
   * every admitted server runs while the session holds it.
   */
  readonly catalogs?: McpCatalogs;
  readonly debounceMs?: number;
  readonly concurrency?: number;
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  readonly stableAfterMs?: number;
  readonly events?: EventRecorder;
  readonly now?: () => number;
  /** Builds the informer store; the daemon passes one that shares the user-settings watcher. */
  readonly storeFactory?: typeof createSessionStore;
}

export interface SessionEvents {
  /**
   * A server's status changed (after a pass over it: its name and kind), or the session's
   * conditions did (no name, no kind: anything may have moved).
   */
  change: [name: string | undefined, kind: ServerKind | undefined];
  /** A gated server of either kind became promptable (strictly pending). */
  pendingApproval: [server: AnyDesiredServer];
  /** Some of an MCP server's tools or prompts are held by their pins, with news to ask about. */
  toolsHeld: [name: string];
  /** A server started waiting for an OAuth login (Ready=False Unauthorized). */
  loginRequired: [name: string];
  /**
   * What serves a server changed: an MCP server's tools or prompts in the registry, or the set
   * of Ready language servers (or one's connection).
   */
  registry: [name: string, kind: ServerKind];
  /** The queue went idle after a burst of reconcile passes (once per burst). */
  settled: [];
}

/** The session's MCP servers as a kind. */
export type McpServerKind = SessionKind<
  DesiredServer,
  AdmissionTicket,
  Lease,
  ApprovalSubject,
  McpServer
>;

/** The session's kinds, by object kind (`session.kind(LANGUAGE_SERVERS.kind)`). */
export interface SessionKinds {
  readonly [MCP_SERVER]: McpServerKind;
  readonly [LANGUAGE_SERVER]: LanguageServerKind;
}

/** A kind of the session, whichever (for what the session does to each alike). */
export interface AnySessionKind {
  approvalsChanged(): void;
  diff(next: DesiredState): DiffLine[];
  settled(): Promise<void>;
  close(): void;
  stop(): Promise<void>;
}
