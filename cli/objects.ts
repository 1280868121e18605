/**
 * The list and object shapes `-o json` prints (DESIGN §6), shared by the daemon (which builds
 * them) and the CLI (which prints them), so both sides agree by construction.
 */
import {
  API_VERSION,
  type Condition,
  type Disclosure,
  type LanguageServer,
  type LanguageServerList,
  type McpServer,
  type McpServerList,
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
export type ConnectionState = 'Connecting' | 'Ready' | 'Draining';

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
    kind: 'McpServer' | 'LanguageServer';
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
    tools: number;
    prompts: number;
  };
}

export interface ConnectionList {
  apiVersion: typeof API_VERSION;
  kind: 'ConnectionList';
  items: ConnectionObject[];
}

/** What `describe server` needs in one round trip. */
export interface ServerDescription {
  server: McpServer;
  /** The session's own conditions (ConfigValid, Trusted): a broken file shows there. */
  sessionConditions: Condition[];
  /**
   * What its config runs or contacts and sends where, as the file writes it: the description
   * the approval question and `approve` show too (api/disclosure.ts).
   */
  disclosure: Disclosure;
  /** Last stderr lines; filled only when the server is not Ready. */
  stderr: string[];
  /** Events about `server/NAME`, oldest first. */
  events: McpEvent[];
}

/** What `describe languageserver` needs in one round trip. */
export interface LanguageServerDescription {
  server: LanguageServer;
  /** The session's own conditions (ConfigValid, Trusted). */
  sessionConditions: Condition[];
  /** What its config runs and sends, as the file writes it (the approval's disclosure). */
  disclosure: Disclosure;
  /** Last stderr lines; filled only when the server is not Ready. */
  stderr: string[];
  /** Events about `languageserver/NAME`, oldest first. */
  events: McpEvent[];
}

/** What `servers.approve` / `servers.reject` answer: the config decided about, then the server. */
export type DecisionResult = {
  decision: 'approved' | 'approved-for-session' | 'rejected';
  /** Exactly the config the decision is bound to (its hash); env and header names only. */
  config: SubjectSummary;
} & (
  | {
      kind: 'McpServer';
      /** The server once settled (its current config may differ if it was edited since). */
      server: McpServer;
    }
  | { kind: 'LanguageServer'; server: LanguageServer }
);

export function serverList(items: McpServer[]): McpServerList {
  return { apiVersion: API_VERSION, kind: 'McpServerList', items };
}

export function languageServerList(items: LanguageServer[]): LanguageServerList {
  return { apiVersion: API_VERSION, kind: 'LanguageServerList', items };
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

export type WatchTopic = 'servers' | 'languageservers' | 'sessions' | 'events';

export interface WatchEvent<T = unknown> {
  watchId: string;
  type: WatchEventType;
  object: T;
}

export interface WatchEnd {
  watchId: string;
  reason: string;
}
