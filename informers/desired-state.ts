/**
 * Assembling a session's desired state from the snapshots of its sources (pure).
 *
 * Guarantees:
 * - Servers: assembleMcpServers() over user < project < workspace < system < session < cli
 *   (DESIGN §4 rule 1); workspace servers only in a trusted folder. Within user: Qwen's user
 *   settings < mcpctl's server file's top level < its `projects[<this workspace>]` (the user's
 *   servers for this workspace only: still scope `user`, never gated). Within workspace: Gemini
 *   CLI's `<ws>/.gemini/settings.json` `mcpServers` < Qwen's `<ws>/.qwen/settings.json` (a name in
 *   both: Qwen's); both gated and both only in a trusted folder. Nothing else of Gemini's file
 *   counts (not its `mcp` section, not its trust).
 * - The `mcp` section, as Qwen Code merges it: `allowed` and `excluded` are the lists of every
 *   layer that has one, joined (user, workspace, system; each name once), so no layer can take
 *   back another's exclusion; a list in no layer stays absent and `allowed: []` alone stays
 *   deny-all. `serverCommand`: the highest layer's (system > workspace > user). The workspace
 *   layer only counts in a trusted folder. `.mcp.json` and `--mcp-config` have no say in gating.
 *   The entries of Qwen's user `mcp.excluded` that mcpctl's server file records in
 *   `qwenOnlyExcluded` are Qwen Code's only and do not count (api/server-file.ts).
 * - Trust: folder trust is enabled by `security.folderTrust.enabled` of the system settings,
 *   else of the user settings; never of the workspace settings (a folder cannot vouch for
 *   itself). Disabled → trusted; enabled → trust.ts decides.
 * - Gating: computeGating() with the session's ceiling and approval lookup.
 * - Language servers: assembleLanguageServers() over `.lsp.json` (project) < `--lsp-config`
 *   (cli), replace never merge; their gating is computeGating() with no settings: `allowed` the
 *   LSP ceiling when given, nothing excluded, `pending` the project ones whose lookup is not
 *   `approved` (without a lookup: every project one). A deleted `.lsp.json` means none.
 * - Every source is listed in `sources` with its file, scope, what it holds, existence, errors,
 *   warnings and whether content of it is in force; a source's last good content is what is
 *   assembled, whatever its current errors.
 */
import type { SessionFlags } from '../api/index.js';
import {
  LANGUAGE_SERVERS,
  MCP_SERVERS,
  assembleLanguageServers,
  assembleMcpServers,
  computeGating,
  joinGatingLists,
  normalizeServerConfig,
  type ApprovalLookup,
  type LanguageServerApprovalLookup,
  type LanguageServerConfigs,
  type McpServerConfig,
  type McpSettings,
  type SourceContent,
  type ServerFileContent,
  type SourceServers,
  workspaceServers,
} from '../api/index.js';
import type { FileSnapshot } from './file-source.js';
import { isWorkspaceTrusted, type TrustRule } from './trust.js';
import type { DesiredState, SourceStatus } from './types.js';

export interface SessionSnapshots {
  readonly system: FileSnapshot<SourceContent>;
  readonly user: FileSnapshot<SourceContent>;
  /** mcpctl's user server file (absent in tests that predate it: no servers of it). */
  readonly servers?: FileSnapshot<ServerFileContent>;
  /** Absent when the workspace settings file is the user settings file (workspace = home). */
  readonly workspace?: FileSnapshot<SourceContent>;
  /** `<ws>/.gemini/settings.json`; absent when it is Gemini's user file (workspace = home). */
  readonly gemini?: FileSnapshot<SourceContent>;
  readonly project: FileSnapshot<SourceContent>;
  readonly cli?: FileSnapshot<SourceContent>;
  /** `<ws>/.lsp.json`. */
  readonly projectLsp: FileSnapshot<LanguageServerConfigs>;
  /** The `--lsp-config` file, when the session has one. */
  readonly cliLsp?: FileSnapshot<LanguageServerConfigs>;
  readonly trustedFolders: FileSnapshot<readonly TrustRule[]>;
}

export interface AssembleInput extends Pick<SessionFlags, 'workspace' | 'ceiling' | 'lspCeiling'> {
  readonly snapshots: SessionSnapshots;
  readonly sessionServers?: Readonly<Record<string, McpServerConfig>>;
  readonly approvals: ApprovalLookup;
  /** Default: nothing approved (every project language server pending). */
  readonly lspApprovals?: LanguageServerApprovalLookup;
}

/** The lookup of a session that was given none: no language server of the project approved. */
export const NO_LSP_APPROVALS: LanguageServerApprovalLookup = () => 'pending';

/** Merges `mcp` sections given highest precedence first; undefined when no layer has one. */
export function mergeMcpSettings(
  layersHighestFirst: readonly (McpSettings | undefined)[],
): McpSettings | undefined {
  const present = layersHighestFirst.filter((l): l is McpSettings => l !== undefined);
  if (present.length === 0) return undefined;
  const merged: McpSettings = {};
  const lowestFirst = [...present].reverse();
  const allowed = joinGatingLists(lowestFirst.map((l) => l.allowed));
  const excluded = joinGatingLists(lowestFirst.map((l) => l.excluded));
  const serverCommand = present.find((l) => l.serverCommand !== undefined)?.serverCommand;
  if (allowed !== undefined) merged.allowed = allowed;
  if (excluded !== undefined) merged.excluded = excluded;
  if (serverCommand !== undefined) merged.serverCommand = serverCommand;
  return merged;
}

/**
 * Qwen's user `mcp` section as mcpctl counts it: without the `mcp.excluded` entries that
 * mcpctl's server file records as Qwen Code's only (`setup qwen` wrote them to keep Qwen from
 * starting a repository's server mcpctl serves). Only this file's: no other layer's list, and
 * an entry the record does not name (the user's own) counts as ever.
 */
function withoutQwenOnly(
  mcp: McpSettings | undefined,
  qwenOnly: readonly string[] | undefined,
): McpSettings | undefined {
  if (mcp?.excluded === undefined || qwenOnly === undefined || qwenOnly.length === 0) return mcp;
  const forQwen = new Set(qwenOnly);
  return { ...mcp, excluded: mcp.excluded.filter((entry) => !forQwen.has(entry)) };
}

export function folderTrustEnabled(system: SourceContent, user: SourceContent): boolean {
  return system.folderTrustEnabled ?? user.folderTrustEnabled ?? false;
}

function status(
  snapshot: FileSnapshot<unknown>,
  scope: SourceStatus['scope'],
  holds: SourceStatus['holds'] = 'servers',
): SourceStatus {
  return {
    file: snapshot.file,
    scope,
    holds,
    exists: snapshot.exists,
    errors: snapshot.errors,
    warnings: snapshot.warnings,
    inForce: snapshot.document !== undefined,
  };
}

export function assembleDesiredState(input: AssembleInput): DesiredState {
  const s = input.snapshots;
  const trusted = isWorkspaceTrusted(
    folderTrustEnabled(s.system.value, s.user.value),
    s.trustedFolders.value,
    input.workspace,
  );
  const layers: SourceServers[] = [
    { scope: 'user', file: s.user.file, servers: s.user.value.mcpServers },
    // Same scope: the order here is the precedence (a stable sort keeps it).
    ...(s.servers === undefined
      ? []
      : [
          // Written as a `.mcp.json` is: `${VAR}` and `${VAR:-default}` expand.
          {
            scope: 'user' as const,
            file: s.servers.file,
            servers: s.servers.value.mcpServers,
            syntax: 'claude' as const,
          },
          {
            scope: 'user' as const,
            file: s.servers.file,
            servers: workspaceServers(s.servers.value, input.workspace),
            syntax: 'claude' as const,
          },
        ]),
    { scope: 'project', file: s.project.file, servers: s.project.value.mcpServers },
    { scope: 'system', file: s.system.file, servers: s.system.value.mcpServers },
  ];
  // Same scope as Qwen's workspace settings and before them: Qwen's win a name in both. Written
  // as Qwen's settings are (`$VAR`, `${VAR}`): the scope's syntax, so none of its own.
  if (s.gemini) {
    layers.push({ scope: 'workspace', file: s.gemini.file, servers: s.gemini.value.mcpServers });
  }
  if (s.workspace) {
    layers.push({
      scope: 'workspace',
      file: s.workspace.file,
      servers: s.workspace.value.mcpServers,
    });
  }
  if (input.sessionServers) {
    const normalised = Object.create(null) as Record<string, McpServerConfig>;
    for (const [name, config] of Object.entries(input.sessionServers)) {
      normalised[name] = normalizeServerConfig(config);
    }
    layers.push({ scope: 'session', file: 'session', servers: normalised });
  }
  if (s.cli) layers.push({ scope: 'cli', file: s.cli.file, servers: s.cli.value.mcpServers });
  const servers = assembleMcpServers(layers, { trusted });
  const mcp = mergeMcpSettings([
    s.system.value.mcp,
    trusted ? s.workspace?.value.mcp : undefined,
    withoutQwenOnly(s.user.value.mcp, s.servers?.value.qwenOnlyExcluded),
  ]);
  const gating = computeGating({
    settings: mcp,
    servers,
    ceiling: input.ceiling,
    approvals: input.approvals,
  });
  const sources: SourceStatus[] = [status(s.system, 'system'), status(s.user, 'user')];
  if (s.servers) sources.push(status(s.servers, 'user'));
  if (s.workspace) sources.push(status(s.workspace, 'workspace'));
  if (s.gemini) sources.push(status(s.gemini, 'workspace'));
  sources.push(status(s.project, 'project'));
  if (s.cli) sources.push(status(s.cli, 'cli'));
  sources.push(status(s.projectLsp, 'project', 'languageServers'));
  if (s.cliLsp) sources.push(status(s.cliLsp, 'cli', 'languageServers'));
  sources.push(status(s.trustedFolders, 'trust', 'trust'));
  const languageServers = assembleLanguageServers([
    { scope: 'project', file: s.projectLsp.file, servers: s.projectLsp.value },
    ...(s.cliLsp ? [{ scope: 'cli' as const, file: s.cliLsp.file, servers: s.cliLsp.value }] : []),
  ]);
  const lspGating = computeGating({
    settings: undefined,
    servers: languageServers,
    ceiling: input.lspCeiling,
    approvals: input.lspApprovals ?? NO_LSP_APPROVALS,
  });
  return {
    kinds: {
      [MCP_SERVERS.kind]: { servers, gating, trusted },
      [LANGUAGE_SERVERS.kind]: { servers: languageServers, gating: lspGating, trusted },
    },
    mcp,
    trusted,
    sources,
  };
}
