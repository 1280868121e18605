/**
 * Builds the McpServer object (DESIGN §6) of one server from its record and registry entry, and
 * the LanguageServer object of a language server from its record. Secret values (env values,
 * headers) are redacted unless `showSecrets`.
 */
import {
  ANNOTATION_SCOPE,
  ANNOTATION_SOURCE,
  API_VERSION,
  LANGUAGE_SERVER,
  LANGUAGE_SERVERS,
  MCP_SERVER,
  MCP_SERVERS,
  type DesiredLanguageServer,
  type DesiredServer,
  type LanguageServer,
  type LanguageServerConfig,
  type McpServer,
  type ObjectMeta,
  type ServerStatusBase,
} from '../api/index.js';
import type { RegistryEntry } from './registry.js';
import type { ServedLease, ServerRecord } from './server-record.js';

export interface ServerObjectOptions {
  /** Print env and header values as they are (`--show-secrets`). */
  readonly showSecrets?: boolean;
}

/** The metadata of either kind: name, generation, creation, scope and source. */
function metadataOf(
  server: { readonly name: string; readonly scope: string; readonly source: string },
  record: ServerRecord<unknown, ServedLease> | undefined,
): ObjectMeta {
  return {
    name: server.name,
    generation: record?.generation ?? 1,
    creationTimestamp: record?.creationTimestamp ?? new Date().toISOString(),
    annotations: { [ANNOTATION_SCOPE]: server.scope, [ANNOTATION_SOURCE]: server.source },
  };
}

/**
 * What the status of either kind says of its record and live connection, conditions aside
 * (they come last, as DESIGN §6 prints them).
 */
function baseStatusOf(
  record: ServerRecord<unknown, ServedLease> | undefined,
  approvalHash: string,
): Omit<ServerStatusBase, 'conditions'> {
  const live = record?.live;
  return {
    ...(record ? { observedGeneration: record.condition('Admitted')?.observedGeneration } : {}),
    ...(live ? { connectionId: live.connectionId } : {}),
    approvalHash,
    ...(live?.lease.pid !== undefined ? { pid: live.lease.pid } : {}),
    ...(live ? { connectedAt: new Date(live.connectedAt).toISOString() } : {}),
    restarts: record?.restarts ?? 0,
  };
}

export function toMcpServer(
  server: DesiredServer,
  record: ServerRecord | undefined,
  entry: RegistryEntry | undefined,
  options: ServerObjectOptions = {},
): McpServer {
  return {
    apiVersion: API_VERSION,
    kind: MCP_SERVER,
    metadata: metadataOf(server, record),
    spec: options.showSecrets
      ? server.config
      : MCP_SERVERS.redact(server.config, server.scope, server.syntax),
    status: {
      ...baseStatusOf(record, MCP_SERVERS.approvalHash(server.config)),
      tools: (entry?.tools ?? []).map((t) => t.name),
      prompts: (entry?.prompts ?? []).map((p) => p.name),
      ...(entry?.pins?.held.length ? { held: entry.pins.held } : {}),
      ...(entry?.pins?.escaped.length ? { escaped: entry.pins.escaped } : {}),
      conditions: record?.conditions ?? [],
    },
  };
}

/**
 * The LanguageServer object of `server`; `workspaceFolder` is the folder it runs on (or would:
 * the entry's, resolved), when known.
 */
export function toLanguageServer(
  server: DesiredLanguageServer,
  record: ServerRecord<LanguageServerConfig, ServedLease> | undefined,
  workspaceFolder: string | undefined,
  options: ServerObjectOptions = {},
): LanguageServer {
  const config = server.config;
  const spec = options.showSecrets ? config : LANGUAGE_SERVERS.redact(config, server.scope);
  return {
    apiVersion: API_VERSION,
    kind: LANGUAGE_SERVER,
    metadata: metadataOf(server, record),
    spec,
    status: {
      ...baseStatusOf(record, LANGUAGE_SERVERS.approvalHash(config)),
      ...(workspaceFolder !== undefined ? { workspaceFolder } : {}),
      extensions: Object.keys(config.extensionToLanguage ?? {}).sort(),
      conditions: record?.conditions ?? [],
    },
  };
}
