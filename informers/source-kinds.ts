/**
 * What each kind of config file means: how it is validated and whether the restart gate applies.
 *
 * Guarantees:
 * - `settings` (system, user, workspace settings.json): `mcpServers`, the `mcp` section and
 *   `security.folderTrust.enabled` are validated through api/; the restart gate applies.
 * - `mcpJson` (`<ws>/.mcp.json`, `--mcp-config FILE`): only `mcpServers` is read, in the Qwen or
 *   the Claude shape, normalised through api/ so both give the same server; other keys are
 *   ignored, never errors. No restart gate: nothing in it needs a restart.
 * - `trustedFolders`: the trust rules of trust.ts.
 * - A server entry with any error makes the whole file invalid (keep-last-good keeps the
 *   previous content in force); warnings (unknown fields) never do.
 * - Files of the gated scopes (`<ws>/.mcp.json`, `<ws>/.qwen/settings.json`), which come with
 *   a repository, hold at most MAX_GATED_SERVERS_PER_FILE servers: past it the file is
 *   invalid before any entry is validated, so a hostile repository cannot make the daemon
 *   validate, hash and list tens of thousands of servers. The user's own files, the system
 *   file and `--mcp-config` have no such cap.
 */
import { normalizeServerConfig, validateSourceDocument, type SourceContent } from '../api/index.js';
import type { FileSourceOptions, Validated } from './file-source.js';
import { isHotChange } from './restart-gate.js';
import { validateTrustRules, type TrustRule } from './trust.js';

export function validateSettingsDocument(document: unknown): Validated<SourceContent> {
  const v = validateSourceDocument(document, normalizeServerConfig);
  return { value: v.content, errors: v.errors, warnings: v.warnings };
}

export function validateMcpJsonDocument(document: unknown): Validated<SourceContent> {
  const isObject = document !== null && typeof document === 'object' && !Array.isArray(document);
  // Only `mcpServers` counts in these files; a non-object still goes through for its error.
  const relevant = isObject
    ? { mcpServers: (document as Record<string, unknown>).mcpServers }
    : document;
  const v = validateSourceDocument(relevant, normalizeServerConfig);
  const value: SourceContent = {};
  if (v.content.mcpServers !== undefined) value.mcpServers = v.content.mcpServers;
  return { value, errors: v.errors, warnings: v.warnings };
}

/** Generous for a real project (each of its servers needs the user's approval anyway). */
export const MAX_GATED_SERVERS_PER_FILE = 1000;

/** `validate`, refusing first a document with more than `max` servers. */
function withServerCap(
  validate: (document: unknown) => Validated<SourceContent>,
  max: number,
  fileKind: string,
): (document: unknown) => Validated<SourceContent> {
  return (document) => {
    const servers =
      document !== null && typeof document === 'object' && !Array.isArray(document)
        ? (document as Record<string, unknown>).mcpServers
        : undefined;
    const count =
      servers !== null && typeof servers === 'object' && !Array.isArray(servers)
        ? Object.keys(servers).length
        : 0;
    if (count <= max) return validate(document);
    return {
      value: {},
      errors: [
        {
          path: ['mcpServers'],
          message: `mcpServers: ${count} servers, more than the ${max} a ${fileKind} may hold; keep the servers you use (each one from a repository needs your approval), or move those you trust to your user settings`,
        },
      ],
      warnings: [],
    };
  };
}

export type KindOptions<T> = Pick<FileSourceOptions<T>, 'validate' | 'empty' | 'isHotChange'>;

export const SETTINGS_KIND: KindOptions<SourceContent> = {
  validate: validateSettingsDocument,
  empty: {},
  isHotChange,
};

/** Workspace settings: gated, so capped. */
export const WORKSPACE_SETTINGS_KIND: KindOptions<SourceContent> = {
  ...SETTINGS_KIND,
  validate: withServerCap(
    validateSettingsDocument,
    MAX_GATED_SERVERS_PER_FILE,
    'workspace settings file',
  ),
};

export const MCP_JSON_KIND: KindOptions<SourceContent> = {
  validate: validateMcpJsonDocument,
  empty: {},
};

/** The project's `.mcp.json`: gated, so capped. */
export const PROJECT_MCP_JSON_KIND: KindOptions<SourceContent> = {
  ...MCP_JSON_KIND,
  validate: withServerCap(validateMcpJsonDocument, MAX_GATED_SERVERS_PER_FILE, 'project .mcp.json'),
};

export const TRUSTED_FOLDERS_KIND: KindOptions<readonly TrustRule[]> = {
  validate: validateTrustRules,
  empty: [],
};
