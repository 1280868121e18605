/**
 * What each kind of config file means: how it is validated and whether the restart gate applies.
 *
 * Guarantees:
 * - `settings` (system, user, workspace settings.json): `mcpServers`, the `mcp` section and
 *   `security.folderTrust.enabled` are validated through api/; the restart gate applies.
 * - `mcpJson` (`<ws>/.mcp.json`, `--mcp-config FILE`): only `mcpServers` is read, in the Qwen or
 *   the Claude shape, normalised through api/ so both give the same server; other keys are
 *   ignored, never errors. No restart gate: nothing in it needs a restart.
 * - `lspJson` (`<ws>/.lsp.json`, `--lsp-config FILE`): a top-level key per language server,
 *   validated through api/lsp-schema.ts. No restart gate.
 * - `serverFile` (mcpctl's own user server file, api/server-file.ts): `mcpServers` as a
 *   `.mcp.json`'s and `projects[<workspace>].mcpServers`; other keys ignored. The user's own
 *   file: no cap, no restart gate.
 * - `geminiSettings` (`<ws>/.gemini/settings.json`, Gemini CLI's project settings): only
 *   `mcpServers` is mcpctl's, read as a `.mcp.json`'s; everything else of it (`mcp.allowed`,
 *   `mcp.excluded`, trust, theme...) is Gemini's and ignored, never an error. No restart gate.
 * - `trustedFolders`: the trust rules of trust.ts.
 * - A server entry with any error makes the whole file invalid (keep-last-good keeps the
 *   previous content in force); warnings (unknown fields) never do.
 * - Files of the gated scopes (`<ws>/.mcp.json`, `<ws>/.qwen/settings.json`,
 *   `<ws>/.gemini/settings.json`, `<ws>/.lsp.json`),
 *   which come with a repository, hold at most MAX_GATED_SERVERS_PER_FILE servers: past it the
 *   file is invalid before any entry is validated, so a hostile repository cannot make the
 *   daemon validate, hash and list tens of thousands of servers. The user's own files, the
 *   system file, `--mcp-config` and `--lsp-config` have no such cap.
 */
import {
  formatPath,
  MAX_GATED_SERVERS_PER_FILE,
  normalizeServerConfig,
  validateLanguageServerDocument,
  validateServerFileDocument,
  validateSourceDocument,
  type ConfigPath,
  type LanguageServerConfigs,
  type ServerFileContent,
  type SourceContent,
  isObject,
} from '../api/index.js';
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

export function validateLspJsonDocument(document: unknown): Validated<LanguageServerConfigs> {
  const v = validateLanguageServerDocument(document);
  return { value: v.servers, errors: v.errors, warnings: v.warnings };
}

/** In api/limits.ts (setup keeps it too); exported here as before. */
export { MAX_GATED_SERVERS_PER_FILE };

/** Where a kind of file keeps its servers, for the cap's count and message. */
interface CapShape<T> {
  /** The servers' map in the document: `mcpServers`, or the whole document for `.lsp.json`. */
  readonly section: ConfigPath;
  /** "servers", "language servers". */
  readonly noun: string;
  /** Where trusted servers belong instead: "your user settings". */
  readonly trustedPlace: string;
  /** The value of a refused file. */
  readonly empty: T;
}

const MCP_CAP: CapShape<SourceContent> = {
  section: ['mcpServers'],
  noun: 'servers',
  trustedPlace: 'your user settings',
  empty: {},
};

const LSP_CAP: CapShape<LanguageServerConfigs> = {
  section: [],
  noun: 'language servers',
  trustedPlace: 'a file you pass with --lsp-config',
  empty: Object.freeze(Object.create(null) as LanguageServerConfigs),
};

/** `validate`, refusing first a document with more than `max` servers. */
function withServerCap<T>(
  validate: (document: unknown) => Validated<T>,
  max: number,
  fileKind: string,
  shape: CapShape<T>,
): (document: unknown) => Validated<T> {
  return (document) => {
    let servers: unknown = document;
    for (const key of shape.section) servers = isObject(servers) ? servers[key] : undefined;
    const count = isObject(servers) ? Object.keys(servers).length : 0;
    if (count <= max) return validate(document);
    const where = shape.section.length > 0 ? `${formatPath(shape.section)}: ` : '';
    return {
      value: shape.empty,
      errors: [
        {
          path: shape.section,
          message: `${where}${count} ${shape.noun}, more than the ${max} a ${fileKind} may hold; keep the ${shape.noun} you use (each one from a repository needs your approval), or move those you trust to ${shape.trustedPlace}`,
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
    MCP_CAP,
  ),
};

export const MCP_JSON_KIND: KindOptions<SourceContent> = {
  validate: validateMcpJsonDocument,
  empty: {},
};

/** The project's `.mcp.json`: gated, so capped. */
export const PROJECT_MCP_JSON_KIND: KindOptions<SourceContent> = {
  ...MCP_JSON_KIND,
  validate: withServerCap(
    validateMcpJsonDocument,
    MAX_GATED_SERVERS_PER_FILE,
    'project .mcp.json',
    MCP_CAP,
  ),
};

/** A Gemini CLI project's `.gemini/settings.json`: its `mcpServers` only; gated, so capped. */
export const GEMINI_SETTINGS_KIND: KindOptions<SourceContent> = {
  ...MCP_JSON_KIND,
  validate: withServerCap(
    validateMcpJsonDocument,
    MAX_GATED_SERVERS_PER_FILE,
    'Gemini project settings file',
    MCP_CAP,
  ),
};

/** `--lsp-config FILE`: the user's own, so not capped. */
export const LSP_JSON_KIND: KindOptions<LanguageServerConfigs> = {
  validate: validateLspJsonDocument,
  empty: LSP_CAP.empty,
};

/** The project's `.lsp.json`: gated, so capped. */
export const PROJECT_LSP_JSON_KIND: KindOptions<LanguageServerConfigs> = {
  ...LSP_JSON_KIND,
  validate: withServerCap(
    validateLspJsonDocument,
    MAX_GATED_SERVERS_PER_FILE,
    'project .lsp.json',
    LSP_CAP,
  ),
};

/** mcpctl's user server file: the user's own, so not capped. */
export const SERVER_FILE_KIND: KindOptions<ServerFileContent> = {
  validate: (document) => {
    const v = validateServerFileDocument(document);
    return { value: v.content, errors: v.errors, warnings: v.warnings };
  },
  empty: {},
};

export const TRUSTED_FOLDERS_KIND: KindOptions<readonly TrustRule[]> = {
  validate: validateTrustRules,
  empty: [],
};
