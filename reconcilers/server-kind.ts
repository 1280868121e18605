/**
 * What differs between the kinds of server one ServerReconciler reconciles (MCP servers,
 * language servers): how a server is admitted, the pool it is acquired from, what the session
 * shows of a served lease, and its update and restart policy. Everything else — the phases of a
 * pass, keep/roll/recreate, back-off, conditions, events — is the reconciler's, the same for
 * both.
 *
 * The MCP kind (`mcpKind`) lives here: admitted by `admit`, pooled by the MCP Pool, served
 * through the session's tool/prompt Registry. The language server kind is built in controller/,
 * which may see lsp/ (DESIGN §3).
 */
import {
  MCP_SERVERS,
  type ConditionInput,
  type DesiredServer,
  type KindDescriptor,
  type McpServerConfig,
} from '../api/index.js';
import type { AcquireOptions, Holder, Lease, Pool, ReleaseOptions } from '../pool/types.js';
import type { AdmissionTicket } from '../pool/ticket.js';
import type { Catalog, CatalogStore } from '../pool/catalog.js';
import { idleStopOf, keyOf } from '../pool/mcp-pool.js';
import {
  admit,
  type AdmissibleServer,
  type Admission,
  type AdmissionContext,
} from './admission.js';
import type { EventReason } from './events.js';
import { PINNED_CONDITION, pinnedCondition, type ToolPins } from './pins.js';
import type { Registry, RegistryEntry } from './registry.js';
import type { ServedLease } from './server-record.js';
import type { RestartPolicy } from './server-status.js';
import { toolFilterOf } from './tool-filter.js';

/** The part of a pool the reconciler drives: acquire with a ticket, release by key. */
export interface KindPool<T, L> {
  /** An abort of `options.signal` while it waits lets go as a `config` release would. */
  acquire(ticket: T, holder: Holder, options?: AcquireOptions): Promise<L>;
  release(key: string, sessionId: string, options: ReleaseOptions): void;
}

/** A condition about what a served lease offers; a False one's reason is its Warning's. */
export type ServedCondition = Omit<ConditionInput, 'observedGeneration' | 'reason'> & {
  readonly reason: EventReason;
};

/** What an idle server is served from (its catalog), as Ready's message says it. */
export interface IdleServed {
  /** When its catalog was learned (ISO time). */
  readonly learnedAt: string;
  /** What it offers, as Ready's message says it: `3 tools`. */
  readonly note: string;
}

/**
 * Start on demand and stop when idle (issue #34): a server whose catalog is known is served
 * from it until a request needs it, and the pool stops it after its idle time.
 */
export interface IdleServing<S extends KindServer, T> {
  /** The server's idle time; 0: started at once and kept while held (as before #34). */
  idleStopMs(config: S['config']): number;
  /** Serves `name` from what `ticket`'s connectionId listed last; undefined when unknown. */
  serveIdle(name: string, ticket: T, config: S['config']): Promise<IdleServed | undefined>;
}

/** A desired server of a kind: what admission reads, and its config. */
export type KindServer = AdmissibleServer;

export interface ServerKindAdapter<
  S extends KindServer,
  T extends { readonly connectionId: string },
  L extends ServedLease,
> {
  /** The kind's words and identities (api/kinds.ts): events' objects, nouns, approval hash. */
  readonly descriptor: KindDescriptor<S['config']>;
  /** The one admission function, with this kind's runtime and ticket. */
  admit(server: S, ctx: AdmissionContext<S>): Admission<T>;
  readonly pool: KindPool<T, L>;
  /** `lease` serves `config` from now on (a swap, or a kept lease): the session shows it. */
  publish(name: string, lease: L, config: S['config']): void;
  /** Nothing serves `name` any more. */
  unpublish(name: string): void;
  /**
   * A kept lease (same connectionId) whose entry changed from `before` to `after`: apply what
   * applies without a new process (language servers: settings, routing).
   */
  update?(lease: L, before: S['config'], after: S['config']): void;
  /**
   * What the served lease offers, as a condition beside Ready (MCP: `ToolsPinned`): set after
   * every publish, dropped when nothing serves the server. Its type is `servedConditionType`.
   */
  servedCondition?(name: string): ServedCondition | undefined;
  readonly servedConditionType?: string;
  /** Ready's message for the served lease (`3 tools`). */
  readyMessage(name: string, lease: L): string;
  /** What a Connected/Restarted event says of a new lease (`3 tools`). */
  connectedNote(lease: L): string;
  updateStrategy(config: S['config']): 'RollingUpdate' | 'Recreate';
  /** When to stop restarting; absent: never (back off forever). */
  restartPolicy?(server: S): RestartPolicy;
  /** Absent: every admitted server runs while its session holds it. */
  readonly idle?: IdleServing<S, T>;
}

/**
 * The MCP kind: tools and prompts in the session's Registry, filtered by the config and, with
 * `pins`, held against what the user accepted (pins.ts).
 */
export function mcpKind(
  pool: Pool,
  registry: Registry,
  pins?: ToolPins,
  catalogs?: McpCatalogs,
): ServerKindAdapter<DesiredServer, AdmissionTicket, Lease> {
  return {
    descriptor: MCP_SERVERS,
    admit,
    pool,
    publish: (name, lease, config) => {
      catalogs?.store.remember(lease.connectionId, catalogOf(lease));
      registry.set(name, entryOf(name, lease, config, pins));
    },
    ...(catalogs
      ? {
          idle: {
            idleStopMs: (config: McpServerConfig) => idleStopOf(config, catalogs.idleStopMs),
            async serveIdle(name: string, ticket: AdmissionTicket, config: McpServerConfig) {
              const key = keyOf(ticket);
              // A process that runs (or drains) for another session is joined, not listed.
              if (pool.has(key)) return undefined;
              const catalog = await catalogs.store.get(ticket.connectionId);
              if (!catalog) return undefined;
              const entry = entryOf(name, listedOf(key, catalog), config, pins, true);
              registry.set(name, entry);
              return { learnedAt: catalog.learnedAt, note: `${entry.tools.length} tools` };
            },
          },
        }
      : {}),
    unpublish: (name) => registry.delete(name),
    ...(pins
      ? {
          servedCondition: (name: string) => {
            const entry = registry.get(name);
            return entry?.pins && pinnedCondition(name, entry.pins, pins.problem());
          },
          servedConditionType: PINNED_CONDITION,
        }
      : {}),
    readyMessage: (name) => `${registry.get(name)?.tools.length ?? 0} tools`,
    connectedNote: (lease) => `${lease.tools().length} tools`,
    updateStrategy: (config) => config.updateStrategy ?? 'RollingUpdate',
  };
}

/** The catalogs of MCP servers and the default idle time (the daemon's `--idle-stop`). */
export interface McpCatalogs {
  readonly store: CatalogStore;
  readonly idleStopMs: number;
}

/** What a registry entry is made of: a live lease, or a catalog while the server is idle. */
type Listed = Pick<
  Lease,
  'key' | 'connectionId' | 'tools' | 'prompts' | 'serverCapabilities' | 'instructions'
>;

function catalogOf(lease: Lease): Parameters<CatalogStore['remember']>[1] {
  const capabilities = lease.serverCapabilities?.();
  const serverInfo = lease.serverVersion?.();
  const instructions = lease.instructions?.();
  return {
    tools: lease.tools(),
    prompts: lease.prompts(),
    ...(capabilities ? { capabilities } : {}),
    ...(serverInfo ? { serverInfo } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
  };
}

function listedOf(key: string, catalog: Catalog): Listed {
  return {
    key,
    connectionId: catalog.connectionId,
    tools: () => catalog.tools,
    prompts: () => catalog.prompts,
    serverCapabilities: () => catalog.capabilities,
    instructions: () => catalog.instructions,
  };
}

function entryOf(
  name: string,
  lease: Listed,
  config: McpServerConfig,
  pins: ToolPins | undefined,
  idle?: true,
): RegistryEntry {
  const keep = toolFilterOf(config);
  // The filter first: a tool the config leaves out is neither pinned nor held.
  const listing = { tools: lease.tools().filter((t) => keep(t.name)), prompts: lease.prompts() };
  const review = pins?.review(name, lease.connectionId, listing);
  return {
    key: lease.key,
    connectionId: lease.connectionId,
    tools: review?.tools ?? listing.tools,
    prompts: review?.prompts ?? listing.prompts,
    ...(review ? { pins: review } : {}),
    capabilities: lease.serverCapabilities?.(),
    instructions: lease.instructions?.(),
    ...(idle ? { idle } : {}),
  };
}
