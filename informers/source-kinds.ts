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

export type KindOptions<T> = Pick<FileSourceOptions<T>, 'validate' | 'empty' | 'isHotChange'>;

export const SETTINGS_KIND: KindOptions<SourceContent> = {
  validate: validateSettingsDocument,
  empty: {},
  isHotChange,
};

export const MCP_JSON_KIND: KindOptions<SourceContent> = {
  validate: validateMcpJsonDocument,
  empty: {},
};

export const TRUSTED_FOLDERS_KIND: KindOptions<readonly TrustRule[]> = {
  validate: validateTrustRules,
  empty: [],
};
