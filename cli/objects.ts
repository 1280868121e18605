/**
 * The list and object shapes `-o json` prints (DESIGN §6), shared by the daemon (which builds
 * them) and the CLI (which prints them), so both sides agree by construction.
 */
import type { LANGUAGE_SERVER, MCP_SERVER } from '../api/index.js';
import {
  API_VERSION,
  type KindResource,
  type Condition,
  type Disclosure,
  type HeldDefinition,
  type LanguageServer,
  type LanguageServerList,
  type McpServer,
  type McpServerList,
  type LanguageServerKindName,
  type McpServerKindName,
  type ServerKind,
} from '../api/index.js';
import type { AgentOpener } from '../controller/daemon.js';
import type { McpEvent } from '../controller/event-recorder.js';
import type { SubjectSummary } from '../controller/session.js';

export type {
  LanguageServer,
  LanguageServerList,
  McpServer,
  McpServerList,
  McpEvent,
  SubjectSummary,
};

/** One file a session reads (a source), as `get sessions -o json|yaml` lists it. */
export interface SessionSource {
  file: string;
  /** `system`, `user`, `workspace`, `project`, `cli`, or `trust` (trustedFolders.json). */
  scope: string;
  /** `servers`, `languageServers` or `trust`. */
  holds: string;
  /** False for a missing file (an empty source, not an error). */
  exists: boolean;
  /** False while its last read did not parse or validate (its last good content in force). */
  valid: boolean;
}

export interface SessionObject {
  apiVersion: typeof API_VERSION;
  kind: 'Session';
  metadata: { name: string };
  spec: {
    /** Realpath of the workspace root. */
    workspace: string;
    /** `--allowed-mcp-server-names`, or null without one. */
    ceiling: string[] | null;
    /** The `--mcp-config` file, or null without one. */
    mcpConfig: string | null;
    /** `--allowed-lsp-server-names`, or null without one (`[]`: no language server). */
    lspCeiling: string[] | null;
    /** The `--lsp-config` file, or null without one. */
    lspConfig: string | null;
  };
  status: {
    /** ConfigValid and Trusted. */
    conditions: Condition[];
    /** Names of the servers in the session's desired set, sorted. */
    servers: string[];
    /** Whose environment `${VAR}` expands in: "daemon" or "serve pid N" (never the values). */
    env: string;
    /**
     * The agents holding the session now (a session is shared by agents that reached the same
     * workspace, possibly different ways), oldest first.
     */
    agents: AgentOpener[];
    /** Every file it reads: settings, mcpctl's server file, .mcp.json, .lsp.json, trustedFolders.json. */
    sources: SessionSource[];
  };
}

export interface SessionList {
  apiVersion: typeof API_VERSION;
  kind: 'SessionList';
  items: SessionObject[];
}

export interface EventList {
  apiVersion: typeof API_VERSION;
  kind: 'EventList';
  items: McpEvent[];
}

/** How a pooled connection stands (`get connections` STATE). */
export type ConnectionState = 'Connecting' | 'Ready' | 'Draining' | 'Idle';

/**
 * One live connection of the daemon's pool (`get connections`, like `kubectl get pods`): which
 * process runs, for which sessions, and — when none holds it — until when it drains.
 */
export interface ConnectionObject {
  apiVersion: typeof API_VERSION;
  kind: 'Connection';
  metadata: {
    /** The pool key: the connectionId, `@session` appended for a `shared: false` server. */
    name: string;
    /** When the pool started connecting it. */
    creationTimestamp: string;
  };
  spec: {
    /** Which kind of server runs: an MCP server or a language server (`.lsp.json`). */
    kind: ServerKind;
    /** The server's name in the config. */
    server: string;
    connectionId: string;
  };
  status: {
    state: ConnectionState;
    /** The server process (stdio); null for a remote server or while it starts. */
    pid: number | null;
    /** The sessions holding it, sorted; empty while it drains. */
    sessions: string[];
    /** When it was ready (initialize and listing done); null while connecting. */
    readyTime: string | null;
    /** While Draining: when it closes unless a session takes it again. */
    drainEndsAt?: string;
    /** While Idle (no process; its catalog is listed): when what it lists was learned. */
    catalogTime?: string;
    tools: number;
    prompts: number;
  };
}

export interface ConnectionList {
  apiVersion: typeof API_VERSION;
  kind: 'ConnectionList';
  items: ConnectionObject[];
}

/** A server object of each kind, by object kind. */
export interface ServerObjects {
  readonly [MCP_SERVER]: McpServer;
  readonly [LANGUAGE_SERVER]: LanguageServer;
}

/** The list of one kind's objects: `McpServerList`, `LanguageServerList`. */
export interface ServerListOf<K extends ServerKind> {
  apiVersion: typeof API_VERSION;
  kind: `${K}List`;
  items: ServerObjects[K][];
}

/** What `describe server|languageserver` needs in one round trip. */
export interface DescriptionOf<O> {
  server: O;
  /** The session's own conditions (ConfigValid, Trusted): a broken file shows there. */
  sessionConditions: Condition[];
  /**
   * What its config runs or contacts and sends where, as the file writes it: the description
   * the approval question and `approve` show too (api/disclosure.ts).
   */
  disclosure: Disclosure;
  /** Last stderr lines; filled only when the server is not Ready. */
  stderr: string[];
  /** Events about it (`server/NAME`, `languageserver/NAME`), oldest first. */
  events: McpEvent[];
}

export type ServerDescription = DescriptionOf<McpServer>;
export type LanguageServerDescription = DescriptionOf<LanguageServer>;

/** What `servers.approve` / `servers.reject` answer: the config decided about, then the server. */
/** What `approve NAME --tools` / `reject NAME --tools` decided, and the server once settled. */
export interface ToolsDecisionResult {
  decision: 'accept' | 'reject';
  decided: HeldDefinition[];
  server: McpServer;
}

export type DecisionResult = {
  decision: 'approved' | 'approved-for-session' | 'rejected';
  /** Exactly the config the decision is bound to (its hash); env and header names only. */
  config: SubjectSummary;
} & (
  | {
      kind: McpServerKindName;
      /** The server once settled (its current config may differ if it was edited since). */
      server: McpServer;
    }
  | { kind: LanguageServerKindName; server: LanguageServer }
);

export function serverListOf<K extends ServerKind>(
  kind: K,
  items: ServerObjects[K][],
): ServerListOf<K> {
  return { apiVersion: API_VERSION, kind: `${kind}List`, items };
}

export function sessionList(items: SessionObject[]): SessionList {
  return { apiVersion: API_VERSION, kind: 'SessionList', items };
}

export function eventList(items: McpEvent[]): EventList {
  return { apiVersion: API_VERSION, kind: 'EventList', items };
}

export function connectionList(items: ConnectionObject[]): ConnectionList {
  return { apiVersion: API_VERSION, kind: 'ConnectionList', items };
}

/** What a watch sends (as `watch.event` notifications), Kubernetes watch style. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A kind's resource (`servers`, `languageservers`), or sessions, or events. */
export type WatchTopic = KindResource | 'sessions' | 'events';

export interface WatchEvent<T = unknown> {
  watchId: string;
  type: WatchEventType;
  object: T;
}

export interface WatchEnd {
  watchId: string;
  reason: string;
}
