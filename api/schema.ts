/**
 * Validation of one MCP server entry (its shape: server-config.ts) and of the parts of a settings
 * file mcpctl reads.
 *
 * Guarantees:
 * - A bad entry yields errors that name the server, the field path, what was expected and the
 *   type found, e.g. `mcpServers.fs.args: expected an array of strings, got a string`.
 * - No message quotes a value of the file, whatever the field: a secret lands in the wrong
 *   field as easily as in `env` (`"args": "--api-key=…"`), and these messages reach events,
 *   conditions, the daemon log and every CLI output. The file's line and column (the informer
 *   adds them) say where the value is.
 * - Unknown fields are kept (passthrough) and reported as warnings, never as errors.
 * - A server needs `command`, `httpUrl` or `url`; one without is an error, not a late surprise.
 * - A server name holding a character that is not shown as itself (escape.ts: controls incl.
 *   newline and tab, bidi, zero-width and tag characters) is an error: names reach terminals,
 *   logs and the agent, where such characters rewrite or hide what is shown. The message shows
 *   the name escaped (escape.ts `quoted`), so it is safe to print anywhere.
 */
import type { z } from 'zod';
import { UNSHOWN, quoted } from './escape.js';
import { describeType } from './redact.js';
import { serverConfigSchema, type McpServerConfig } from './server-config.js';

/** Human words for what each known MCP server field must be; used in error messages. */
const EXPECTED: Record<string, string> = {
  command: 'a non-empty string',
  args: 'an array of strings',
  env: 'an object of string values',
  cwd: 'a non-empty string',
  url: 'an absolute URL (SSE)',
  httpUrl: 'an absolute URL (streamable HTTP)',
  type: 'one of "stdio", "sse", "http"',
  headers: 'an object of string values',
  timeout: 'a positive whole number of milliseconds',
  discoveryTimeoutMs: 'a positive whole number of milliseconds',
  trust: 'true or false',
  description: 'a string',
  includeTools: 'an array of strings',
  excludeTools: 'an array of strings',
  disabled: 'true or false',
  updateStrategy: 'one of "RollingUpdate", "Recreate"',
  shared: 'true or false',
  idleStopMs: 'a whole number of milliseconds, 0 or more (0: kept while an agent holds it)',
  oauth: 'an object',
  authProviderType: 'a string',
  extensionName: 'a string',
};

export const KNOWN_SERVER_FIELDS: ReadonlySet<string> = new Set(Object.keys(EXPECTED));

/**
 * What a kind of config entry's fields must be, in human words, for its error messages: the
 * MCP server entry here, the language server entry in lsp-schema.ts.
 */
export interface FieldWords {
  /** Per known top-level field: "an array of strings". */
  readonly fields: Readonly<Record<string, string>>;
  /** Per field holding a list or a map: what one of its items or values must be. */
  readonly elements: Readonly<Record<string, string>>;
}

const SERVER_WORDS: FieldWords = {
  fields: EXPECTED,
  elements: {
    env: 'a string',
    headers: 'a string',
    args: 'a string',
    includeTools: 'a string',
    excludeTools: 'a string',
  },
};

export type ConfigPath = ReadonlyArray<string | number>;

export interface ConfigIssue {
  /** Path inside the file, e.g. ['mcpServers', 'fs', 'args']. */
  readonly path: ConfigPath;
  /** Full message starting with the dotted path. */
  readonly message: string;
}

export function formatPath(path: ConfigPath): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : p))
    .join('.')
    .replace(/\.\[/g, '[');
}

function valueAt(root: unknown, path: ConfigPath): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

function expectedFor(relPath: ConfigPath, issue: z.ZodIssue, words: FieldWords): string {
  const [field, ...rest] = relPath;
  const known = typeof field === 'string' && Object.hasOwn(words.fields, field);
  if (known && rest.length === 0) return words.fields[field];
  if (known && rest.length === 1 && Object.hasOwn(words.elements, field))
    return words.elements[field];
  // Never zod's own words: they may quote the value (`received 'x'`).
  if (issue.code === 'invalid_type') return `a value of type ${issue.expected}`;
  if (issue.code === 'invalid_enum_value')
    return `one of ${issue.options.map((o) => JSON.stringify(o)).join(', ')}`;
  return 'a valid value';
}

/**
 * One message per zod issue of an entry at `basePath`: the field's path, what was expected
 * (in `words`) and the type found, never the value.
 */
export function fieldIssues(
  raw: unknown,
  basePath: ConfigPath,
  issues: readonly z.ZodIssue[],
  words: FieldWords,
): ConfigIssue[] {
  return issues.map((issue) => {
    const path = [...basePath, ...issue.path];
    const got = describeType(valueAt(raw, issue.path));
    return {
      path,
      message: `${formatPath(path)}: expected ${expectedFor(issue.path, issue, words)}, got ${got}`,
    };
  });
}

/** A warning per field of the entry at `basePath` that is not in `known`: kept, not used. */
export function unknownFieldWarnings(
  raw: object,
  basePath: ConfigPath,
  known: ReadonlySet<string>,
): ConfigIssue[] {
  return Object.keys(raw)
    .filter((k) => !known.has(k))
    .map((k) => ({
      path: [...basePath, k],
      message: `${formatPath([...basePath, k])}: unknown field, kept but not used by mcpctl`,
    }));
}

export interface ServerValidation {
  readonly config?: McpServerConfig;
  readonly errors: ConfigIssue[];
  readonly warnings: ConfigIssue[];
}

/**
 * Validates one server entry found at `basePath` (e.g. ['mcpServers', 'fs']).
 * The returned config is not yet normalised; see normalizeServerConfig().
 */
export function validateServerConfig(raw: unknown, basePath: ConfigPath): ServerValidation {
  const where = formatPath(basePath);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      errors: [
        {
          path: basePath,
          message: `${where}: expected an object describing the server, got ${describeType(raw)}`,
        },
      ],
      warnings: [],
    };
  }
  const warnings = unknownFieldWarnings(raw, basePath, KNOWN_SERVER_FIELDS);
  const parsed = serverConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return { errors: fieldIssues(raw, basePath, parsed.error.issues, SERVER_WORDS), warnings };
  }
  const config = parsed.data;
  const hasUrl = config.url !== undefined || config.httpUrl !== undefined;
  if (config.command === undefined && !hasUrl) {
    return {
      errors: [
        {
          path: basePath,
          message: `${where}: needs "command" (a local stdio server), "httpUrl" (streamable HTTP) or "url" (SSE, or HTTP with "type": "http")`,
        },
      ],
      warnings,
    };
  }
  if (config.type === 'stdio' && config.command === undefined) {
    return {
      errors: [
        {
          path: [...basePath, 'command'],
          message: `${where}.command: "type": "stdio" needs a command`,
        },
      ],
      warnings,
    };
  }
  return { config, errors: [], warnings };
}

function stringList(raw: unknown, path: ConfigPath, errors: ConfigIssue[]): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.some((x) => typeof x !== 'string')) {
    errors.push({
      path,
      message: `${formatPath(path)}: expected an array of server names (strings), got ${describeType(raw)}`,
    });
    return undefined;
  }
  return [...(raw as string[])];
}

/**
 * Validation results by server entry object. The informer hands over documents that share every
 * unchanged subtree with the previous read, so an entry nobody edited arrives as the very object
 * validated last time: it skips zod and keeps its config object, and the diff that follows is a
 * reference check. A weak map: entries of documents no longer held are forgotten with them.
 * Results are immutable; a hit also needs the same name and normaliser (both shape the result).
 */
interface CachedValidation {
  readonly name: string;
  readonly normalize: (c: McpServerConfig) => McpServerConfig;
  readonly result: ServerValidation;
}
const entryCache = new WeakMap<object, CachedValidation>();

function validatedEntry(
  name: string,
  raw: unknown,
  normalize: (c: McpServerConfig) => McpServerConfig,
): ServerValidation {
  const cacheable = raw !== null && typeof raw === 'object';
  const hit = cacheable ? entryCache.get(raw) : undefined;
  if (hit !== undefined && hit.name === name && hit.normalize === normalize) return hit.result;
  const v = validateServerConfig(raw, ['mcpServers', name]);
  const result = v.config ? { ...v, config: normalize(v.config) } : v;
  if (cacheable) entryCache.set(raw, { name, normalize, result });
  return result;
}

interface ServerMapValidation {
  readonly servers: Record<string, McpServerConfig>;
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

/** Results by `mcpServers` object: a save that left the section alone reuses its whole map. */
const mapCache = new WeakMap<
  object,
  {
    readonly normalize: (c: McpServerConfig) => McpServerConfig;
    readonly result: ServerMapValidation;
  }
>();

/** A name in double quotes with every unshown character escaped (escape.ts `quoted`). */
export function quoteName(name: string): string {
  return quoted(name);
}

/**
 * The error for a server name (a key of `section`, [] for the top of the file) that is empty
 * or holds an unshown character (escape.ts); undefined for a good name. `noun` names the kind
 * ("server", "language server").
 */
export function serverNameIssue(
  name: string,
  section: ConfigPath,
  noun = 'server',
): ConfigIssue | undefined {
  const where = section.length > 0 ? `${formatPath(section)}: ` : '';
  if (name.trim() === '')
    return { path: [...section, name], message: `${where}a ${noun} name must not be empty` };
  const bad = UNSHOWN.exec(name);
  if (bad === null) return undefined;
  const code = `U+${(bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return {
    path: [...section, name],
    message: `${where}the ${noun} name ${quoteName(name)} contains the control character ${code}; rename the ${noun} using letters, digits, "-", "_" or "."`,
  };
}

function validatedServerMap(
  servers: object,
  normalize: (c: McpServerConfig) => McpServerConfig,
): ServerMapValidation {
  const hit = mapCache.get(servers);
  if (hit !== undefined && hit.normalize === normalize) return hit.result;
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  // A null-prototype map: server names like "__proto__" are ordinary names here.
  const out = Object.create(null) as Record<string, McpServerConfig>;
  const raws = servers as Record<string, unknown>;
  for (const name of Object.keys(raws)) {
    const badName = serverNameIssue(name, ['mcpServers']);
    if (badName !== undefined) {
      errors.push(badName);
      continue;
    }
    const v = validatedEntry(name, raws[name], normalize);
    if (v.errors.length > 0) errors.push(...v.errors);
    if (v.warnings.length > 0) warnings.push(...v.warnings);
    if (v.config) out[name] = v.config;
  }
  const result = { servers: out, errors, warnings };
  mapCache.set(servers, { normalize, result });
  return result;
}

/** The `mcp` section of a settings file: the gating lists and the restart-only serverCommand. */
export interface McpSettings {
  allowed?: string[];
  excluded?: string[];
  serverCommand?: string;
}

/** What mcpctl takes from one config file. Everything else in the file is ignored here. */
export interface SourceContent {
  /** `undefined` when the file has no `mcpServers` key. */
  mcpServers?: Record<string, McpServerConfig>;
  mcp?: McpSettings;
  /** `security.folderTrust.enabled` (only meaningful in user settings). */
  folderTrustEnabled?: boolean;
}

export interface SourceValidation {
  readonly content: SourceContent;
  readonly errors: ConfigIssue[];
  readonly warnings: ConfigIssue[];
}

/**
 * Validates the parts of a parsed settings / .mcp.json document that mcpctl uses.
 * `normalize` is applied to each valid server (Claude shape → ours).
 *
 * The document is taken as immutable: results are cached by the identity of its `mcpServers`
 * object and of each entry, and returned objects are shared between calls (never mutate them).
 */
export function validateSourceDocument(
  doc: unknown,
  normalize: (c: McpServerConfig) => McpServerConfig,
): SourceValidation {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const content: SourceContent = {};
  if (doc === undefined || doc === null) return { content, errors, warnings };
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    errors.push({
      path: [],
      message: `expected a JSON object at the top of the file, got ${describeType(doc)}`,
    });
    return { content, errors, warnings };
  }
  const top = doc as Record<string, unknown>;
  if (top.mcpServers !== undefined) {
    const servers = top.mcpServers;
    if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
      errors.push({
        path: ['mcpServers'],
        message: `mcpServers: expected an object mapping server names to their config, got ${describeType(servers)}`,
      });
    } else {
      const map = validatedServerMap(servers, normalize);
      errors.push(...map.errors);
      warnings.push(...map.warnings);
      content.mcpServers = map.servers;
    }
  }
  if (top.mcp !== undefined) {
    const mcp = top.mcp;
    if (mcp === null || typeof mcp !== 'object' || Array.isArray(mcp)) {
      errors.push({ path: ['mcp'], message: `mcp: expected an object, got ${describeType(mcp)}` });
    } else {
      const m = mcp as Record<string, unknown>;
      const section: McpSettings = {};
      const allowed = stringList(m.allowed, ['mcp', 'allowed'], errors);
      const excluded = stringList(m.excluded, ['mcp', 'excluded'], errors);
      if (allowed !== undefined) section.allowed = allowed;
      if (excluded !== undefined) section.excluded = excluded;
      if (m.serverCommand !== undefined) {
        if (typeof m.serverCommand === 'string') section.serverCommand = m.serverCommand;
        else
          errors.push({
            path: ['mcp', 'serverCommand'],
            message: `mcp.serverCommand: expected a string, got ${describeType(m.serverCommand)}`,
          });
      }
      content.mcp = section;
    }
  }
  const security = top.security as Record<string, unknown> | undefined;
  const folderTrust =
    security && typeof security === 'object'
      ? (security.folderTrust as Record<string, unknown> | undefined)
      : undefined;
  if (folderTrust && typeof folderTrust === 'object' && folderTrust.enabled !== undefined) {
    if (typeof folderTrust.enabled === 'boolean') content.folderTrustEnabled = folderTrust.enabled;
    else
      errors.push({
        path: ['security', 'folderTrust', 'enabled'],
        message: `security.folderTrust.enabled: expected true or false, got ${describeType(folderTrust.enabled)}`,
      });
  }
  return { content, errors, warnings };
}
