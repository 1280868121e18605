/**
 * `connections.list`: the daemon's pool as objects (`mcpctl get connections`), so a user can
 * always see why a server process is alive — which sessions hold it, or that it drains and
 * until when.
 *
 * Guarantees: one item per pool entry that is connecting, ready or draining (entries that
 * failed or closed are gone), and one `Idle` item per server key that sessions list from its
 * catalog while no process runs (its sessions are those listing it), of both pools (MCP servers and language servers, `spec.kind`), sorted by server name then key; no config values are included,
 * so nothing secret can show.
 */
import { z } from 'zod';
import {
  connectionList,
  type ConnectionList,
  type ConnectionObject,
  type ConnectionState,
} from '../objects.js';
import { API_VERSION, LANGUAGE_SERVER, MCP_SERVER } from '../../api/index.js';
import { method, type MethodTable } from '../rpc/methods.js';
import type { MethodContext } from './context.js';

/**
 * One pool entry as the pool reports it (the CLI does not import pool/, DESIGN §3); a language
 * server's entry has no tools or prompts.
 */
type EntryStats = Omit<
  ReturnType<MethodContext['daemon']['pool']['stats']>[number],
  'tools' | 'prompts'
> & {
  readonly tools?: number;
  readonly prompts?: number;
};

const STATES: Partial<Record<EntryStats['state'], ConnectionState>> = {
  connecting: 'Connecting',
  ready: 'Ready',
  draining: 'Draining',
};

export function toConnectionObject(
  e: EntryStats,
  state: ConnectionState,
  kind: ConnectionObject['spec']['kind'] = MCP_SERVER,
): ConnectionObject {
  return {
    apiVersion: API_VERSION,
    kind: 'Connection',
    metadata: { name: e.key, creationTimestamp: e.createdAt.toISOString() },
    spec: { kind, server: e.name, connectionId: e.connectionId },
    status: {
      state,
      pid: e.pid ?? null,
      sessions: [...e.refs],
      readyTime: e.startedAt?.toISOString() ?? null,
      ...(state === 'Draining' && e.drainEndsAt
        ? { drainEndsAt: e.drainEndsAt.toISOString() }
        : {}),
      tools: e.tools ?? 0,
      prompts: e.prompts ?? 0,
    },
  };
}

/** The servers sessions list from a catalog with no process, by key (`live`: keys that run). */
function idleConnections(ctx: MethodContext, live: ReadonlySet<string>): ConnectionObject[] {
  const idle = new Map<
    string,
    { server: string; connectionId: string; sessions: Set<string>; tools: number; prompts: number }
  >();
  for (const { session } of ctx.daemon.sessions()) {
    for (const [server, entry] of session.registry.entries()) {
      if (!entry.idle || live.has(entry.key)) continue;
      let item = idle.get(entry.key);
      if (!item) {
        item = {
          server,
          connectionId: entry.connectionId,
          sessions: new Set(),
          tools: entry.tools.length,
          prompts: entry.prompts.length,
        };
        idle.set(entry.key, item);
      }
      item.sessions.add(session.id);
    }
  }
  return [...idle].map(([key, item]) => {
    const learnedAt = ctx.daemon.catalogs?.peek(item.connectionId)?.learnedAt;
    return {
      apiVersion: API_VERSION,
      kind: 'Connection',
      metadata: { name: key, creationTimestamp: learnedAt ?? new Date().toISOString() },
      spec: { kind: MCP_SERVER, server: item.server, connectionId: item.connectionId },
      status: {
        state: 'Idle',
        pid: null,
        sessions: [...item.sessions].sort(),
        readyTime: null,
        ...(learnedAt ? { catalogTime: learnedAt } : {}),
        tools: item.tools,
        prompts: item.prompts,
      },
    };
  });
}

export function connectionMethods(ctx: MethodContext): MethodTable {
  return {
    'connections.list': method(
      z.object({}),
      "ConnectionList of the daemon's pools: every live or starting server (MCP or language server) and who holds it",
      (): ConnectionList => {
        const items: ConnectionObject[] = [];
        for (const e of ctx.daemon.pool.stats()) {
          const state = STATES[e.state];
          if (state) items.push(toConnectionObject(e, state));
        }
        for (const e of ctx.daemon.lspPool.stats()) {
          const state = STATES[e.state];
          if (state) items.push(toConnectionObject(e, state, LANGUAGE_SERVER));
        }
        items.push(...idleConnections(ctx, new Set(items.map((i) => i.metadata.name))));
        items.sort(
          (a, b) =>
            a.spec.server.localeCompare(b.spec.server) ||
            a.metadata.name.localeCompare(b.metadata.name),
        );
        return connectionList(items);
      },
    ),
  };
}
