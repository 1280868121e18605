/**
 * A session's MCP servers as a kind of the session (session-kind.ts): served through the
 * session's tool/prompt Registry, admitted with the session's MCP gating and approvals, shown
 * as McpServer objects.
 *
 * Guarantees:
 * - The kind's part of the desired state is the store's own (`kinds.McpServer`): nothing is
 *   copied on a pass.
 * - `why` names the session's `--allowed-mcp-server-names` ceiling and the settings' own
 *   `mcp.allowed`, so a narrowed allowlist says which of the two narrowed it.
 * - Approvals changed elsewhere re-read the gating (approval-decisions.ts `changed`), which
 *   reconciles the names whose admission moved, and reports malformed entries once.
 */
import { MCP_SERVERS, type DesiredServer, type McpServer } from '../api/index.js';
import type { ApprovalSubject } from '../approvals/index.js';
import type { DesiredState } from '../informers/types.js';
import type { Lease, Pool } from '../pool/types.js';
import type { AdmissionTicket } from '../pool/ticket.js';
import type { ToolPins } from '../reconcilers/pins.js';
import type { Registry } from '../reconcilers/registry.js';
import { toMcpServer } from '../reconcilers/server-object.js';
import { mcpKind, type McpCatalogs } from '../reconcilers/server-kind.js';
import { MCP_WHY } from '../reconcilers/why.js';
import { MCP_DECISIONS } from './approval-decisions.js';
import type { KindParts } from './session-kind.js';
import type { SessionAdmission } from './session-admission.js';

export type McpParts = KindParts<DesiredServer, AdmissionTicket, Lease, ApprovalSubject, McpServer>;

export interface McpPartsDeps {
  readonly sessionId: string;
  readonly pool: Pool;
  readonly registry: Registry;
  readonly admission: SessionAdmission;
  /** `--allowed-mcp-server-names`, for `why`. */
  readonly ceiling: readonly string[] | undefined;
  /** The pins the servers' listings are held against (absent: nothing is pinned). */
  readonly pins?: ToolPins;
  /** Start on demand and stop when idle (absent: every admitted server runs while held). */
  readonly catalogs?: McpCatalogs;
}

export function mcpServerParts(deps: McpPartsDeps): McpParts {
  return {
    adapter: mcpKind(deps.pool, deps.registry, deps.pins, deps.catalogs),
    decisions: MCP_DECISIONS,
    why: MCP_WHY,
    holds: 'servers',
    view: (desired: DesiredState) => desired.kinds[MCP_SERVERS.kind],
    admissionContext: (view) => deps.admission.context(view),
    whyLimits: (desired) => ({
      ceiling: deps.ceiling,
      settingsAllowed: desired.mcp?.allowed,
      settingsExcluded: desired.mcp?.excluded,
    }),
    object: (server, record, options) =>
      toMcpServer(server, record, deps.registry.get(server.name), options),
    approvalsChanged: (kind) => kind.decisions.changed(),
    releaseSession: () => deps.pool.releaseSession(deps.sessionId),
  };
}
