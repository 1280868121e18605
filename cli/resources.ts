/**
 * The list and object shapes `-o json` prints (DESIGN §6), shared by the daemon (which builds
 * them) and the CLI (which prints them), so both sides agree by construction.
 */
import { API_VERSION, type Condition, type McpServer, type McpServerList } from '../api/index.js';
import type { McpEvent } from '../controller/event-recorder.js';

export type { McpServer, McpServerList, McpEvent };

export interface SessionResource {
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
    /** Whose environment `${VAR}` expands in: "daemon" or "serve pid N" (never the values). */
    env: string;
  };
  status: {
    /** ConfigValid and Trusted. */
    conditions: Condition[];
    /** Names of the servers in the session's desired set, sorted. */
    servers: string[];
  };
}

export interface SessionList {
  apiVersion: typeof API_VERSION;
  kind: 'SessionList';
  items: SessionResource[];
}

export interface EventList {
  apiVersion: typeof API_VERSION;
  kind: 'EventList';
  items: McpEvent[];
}

/** What `describe server` needs in one round trip. */
export interface ServerDescription {
  server: McpServer;
  /** Last stderr lines; filled only when the server is not Ready. */
  stderr: string[];
  /** Events about `server/NAME`, oldest first. */
  events: McpEvent[];
}

export function serverList(items: McpServer[]): McpServerList {
  return { apiVersion: API_VERSION, kind: 'McpServerList', items };
}

export function sessionList(items: SessionResource[]): SessionList {
  return { apiVersion: API_VERSION, kind: 'SessionList', items };
}

export function eventList(items: McpEvent[]): EventList {
  return { apiVersion: API_VERSION, kind: 'EventList', items };
}

/** What a watch sends (as `watch.event` notifications), Kubernetes watch style. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export type WatchTopic = 'servers' | 'sessions' | 'events';

export interface WatchEvent<T = unknown> {
  watchId: string;
  type: WatchEventType;
  object: T;
}

export interface WatchEnd {
  watchId: string;
  reason: string;
}
