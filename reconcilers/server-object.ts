/** Builds the McpServer object (DESIGN §6) of one server from its record and registry entry. */
import {
  ANNOTATION_SCOPE,
  ANNOTATION_SOURCE,
  API_VERSION,
  approvalHashOf,
  redact,
  syntaxOfScope,
  type DesiredServer,
  type McpServer,
} from '../api/index.js';
import type { RegistryEntry } from './registry.js';
import type { ServerRecord } from './server-record.js';

export interface ServerObjectOptions {
  /** Print env and header values as they are (`--show-secrets`). */
  readonly showSecrets?: boolean;
}

export function toMcpServer(
  server: DesiredServer,
  record: ServerRecord | undefined,
  entry: RegistryEntry | undefined,
  options: ServerObjectOptions = {},
): McpServer {
  const live = record?.live;
  return {
    apiVersion: API_VERSION,
    kind: 'McpServer',
    metadata: {
      name: server.name,
      generation: record?.generation ?? 1,
      creationTimestamp: record?.creationTimestamp ?? new Date().toISOString(),
      annotations: { [ANNOTATION_SCOPE]: server.scope, [ANNOTATION_SOURCE]: server.source },
    },
    spec: options.showSecrets ? server.config : redact(server.config, syntaxOfScope(server.scope)),
    status: {
      ...(record ? { observedGeneration: record.condition('Admitted')?.observedGeneration } : {}),
      ...(live ? { connectionId: live.connectionId } : {}),
      approvalHash: approvalHashOf(server.config),
      ...(live?.lease.pid !== undefined ? { pid: live.lease.pid } : {}),
      ...(live ? { connectedAt: new Date(live.connectedAt).toISOString() } : {}),
      restarts: record?.restarts ?? 0,
      tools: (entry?.tools ?? []).map((t) => t.name),
      prompts: (entry?.prompts ?? []).map((p) => p.name),
      conditions: record?.conditions ?? [],
    },
  };
}
