/**
 * Environment variables in a server's config, expanded the way each file's own client does it
 * (DESIGN §5 "The agent's environment").
 *
 * - `settings`: Qwen/Gemini `settings.json` (system, user, workspace scope): `$VAR` and `${VAR}`
 *   in every string of the server's config (object keys stay as written).
 * - `claude`: `.mcp.json` and `--mcp-config` files: `${VAR}` and `${VAR:-default}` in `command`,
 *   `args`, `env` values, `url`/`httpUrl` and `headers` values; a bare `$VAR` is text there.
 * - `none`: servers handed over by the session itself are taken as given.
 *
 * Guarantees:
 * - A variable name is a POSIX name (`[A-Za-z_][A-Za-z0-9_]*`); a `$` that starts no such
 *   reference (`$5`, `$$`, `${a b}`, a lone `$`) is kept as text.
 * - A variable is set only when it is an own string entry of the environment: names of
 *   built-ins (`${constructor}`, `$toString`, `${__proto__}`) are unset like any other.
 * - A referenced variable that is unset, with no default, is reported in `missing` (each name
 *   once, in order of appearance) and no config is produced: nothing may start with a literal
 *   `${VAR}` in it. `${VAR:-default}` takes the default when VAR is unset or empty.
 * - Every value taken from the environment (or a default standing in for it) is listed in
 *   `substituted`: callers treat those as secrets wherever text is shown.
 * - A config without references comes back as the very same object (no copy on the hot path).
 */
import type { McpServerConfig } from './server-config.js';
import type { Scope } from './scope.js';

export type ExpansionSyntax = 'settings' | 'claude' | 'none';

/** The environment a session expands with: a plain name → value map. */
export type SessionEnv = Readonly<Record<string, string | undefined>>;

export type Expansion<C = McpServerConfig> =
  | { readonly ok: true; readonly config: C; readonly substituted: readonly string[] }
  | { readonly ok: false; readonly missing: readonly string[] };

/**
 * The fields of a config a Claude-syntax file expands, in the order their references are
 * reported: `text` (one string), `list` (an array of strings), `record` (the values of a
 * name → string map). Every other field is plain text.
 */
export type ClaudeFields = ReadonlyArray<
  readonly [field: string, shape: 'text' | 'list' | 'record']
>;

/** An MCP server's expanded fields in `.mcp.json` / `--mcp-config`. */
export const MCP_CLAUDE_FIELDS: ClaudeFields = [
  ['command', 'text'],
  ['args', 'list'],
  ['env', 'record'],
  ['url', 'text'],
  ['httpUrl', 'text'],
  ['headers', 'record'],
];

/** Which syntax a server's scope was written in. */
export function syntaxOfScope(scope: Scope): ExpansionSyntax {
  switch (scope) {
    case 'system':
    case 'user':
    case 'workspace':
      return 'settings';
    case 'project':
    case 'cli':
      return 'claude';
    case 'session':
      return 'none';
  }
}

/** Which syntax a desired server's file writes: its own when it says so, else its scope's. */
export function syntaxOfServer(server: {
  readonly scope: Scope;
  readonly syntax?: ExpansionSyntax;
}): ExpansionSyntax {
  return server.syntax ?? syntaxOfScope(server.scope);
}

// `$NAME` | `${NAME}`. A settings file's `${A:-b}` matches neither form, so it stays text (as in
// Qwen/Gemini, where such a "name" is never set).
const SETTINGS_REF = /\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/g;
const CLAUDE_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * The value of `name` in `env`, or undefined: only the environment's own entries count, so
 * `constructor`, `toString` or `__proto__` (inherited by `{}` and process.env) are unset.
 */
function lookup(env: SessionEnv, name: string): string | undefined {
  if (!Object.hasOwn(env, name)) return undefined;
  const value = env[name];
  return typeof value === 'string' ? value : undefined;
}

interface Collector {
  readonly env: SessionEnv;
  readonly missing: string[];
  readonly substituted: string[];
}

function expandText(text: string, syntax: 'settings' | 'claude', c: Collector): string {
  if (!text.includes('$')) return text;
  if (syntax === 'settings') {
    return text.replace(
      SETTINGS_REF,
      (match, bare: string | undefined, braced: string | undefined) => {
        const name = (bare ?? braced) as string;
        const value = lookup(c.env, name);
        if (value === undefined) {
          if (!c.missing.includes(name)) c.missing.push(name);
          return match;
        }
        c.substituted.push(value);
        return value;
      },
    );
  }
  return text.replace(CLAUDE_REF, (match, name: string, fallback: string | undefined) => {
    const value = lookup(c.env, name);
    if (fallback !== undefined && (value === undefined || value === '')) {
      c.substituted.push(fallback);
      return fallback;
    }
    if (value === undefined) {
      if (!c.missing.includes(name)) c.missing.push(name);
      return match;
    }
    c.substituted.push(value);
    return value;
  });
}

/** Every string inside `value` (object values and array items, not keys), expanded. */
function expandDeep(value: unknown, c: Collector): unknown {
  if (typeof value === 'string') return expandText(value, 'settings', c);
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, c));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandDeep(v, c);
    return out;
  }
  return value;
}

function expandRecord(
  record: Readonly<Record<string, string>> | undefined,
  c: Collector,
): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record)) out[k] = expandText(v, 'claude', c);
  return out;
}

function expandClaude<C extends object>(config: C, fields: ClaudeFields, c: Collector): C {
  const src = config as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = { ...src };
  for (const [field, shape] of fields) {
    const value = src[field];
    if (value === undefined) continue;
    if (shape === 'text' && typeof value === 'string') out[field] = expandText(value, 'claude', c);
    else if (shape === 'list' && Array.isArray(value))
      out[field] = value.map((a: unknown) =>
        typeof a === 'string' ? expandText(a, 'claude', c) : a,
      );
    else if (shape === 'record' && value !== null && typeof value === 'object')
      out[field] = expandRecord(value as Readonly<Record<string, string>>, c);
  }
  return out as C;
}

/** True when some string of the config could hold a reference (cheap pre-check). */
function mentionsDollar(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('$');
  if (Array.isArray(value)) return value.some(mentionsDollar);
  if (value !== null && typeof value === 'object') return Object.values(value).some(mentionsDollar);
  return false;
}

export function expandServerConfig(
  config: McpServerConfig,
  syntax: ExpansionSyntax,
  env: SessionEnv,
): Expansion {
  if (syntax === 'none' || !mentionsDollar(config)) return { ok: true, config, substituted: [] };
  const c: Collector = { env, missing: [], substituted: [] };
  const expanded =
    syntax === 'settings'
      ? (expandDeep(config, c) as McpServerConfig)
      : expandClaude(config, MCP_CLAUDE_FIELDS, c);
  if (c.missing.length > 0) return { ok: false, missing: c.missing };
  return { ok: true, config: expanded, substituted: c.substituted };
}

/**
 * `config` with the Claude-syntax references (`${VAR}`, `${VAR:-default}`) of `fields` expanded
 * in `env`: the expander of `.mcp.json`, for any kind of entry written in that syntax (a
 * language server's `.lsp.json` entry too). Same guarantees as expandServerConfig.
 */
export function expandClaudeConfig<C extends object>(
  config: C,
  fields: ClaudeFields,
  env: SessionEnv,
): Expansion<C> {
  if (!mentionsDollar(config)) return { ok: true, config, substituted: [] };
  const c: Collector = { env, missing: [], substituted: [] };
  const expanded = expandClaude(config, fields, c);
  if (c.missing.length > 0) return { ok: false, missing: c.missing };
  return { ok: true, config: expanded, substituted: c.substituted };
}

/** True when `text` holds at least one reference in `syntax` (for showing a file's text). */
export function hasReference(text: string, syntax: ExpansionSyntax): boolean {
  if (syntax === 'none') return false;
  const re = syntax === 'settings' ? SETTINGS_REF : CLAUDE_REF;
  re.lastIndex = 0;
  const found = re.test(text);
  re.lastIndex = 0;
  return found;
}

/** `text` with every reference of `syntax` removed: what the file itself holds literally. */
export function literalPartOf(text: string, syntax: ExpansionSyntax): string {
  if (syntax === 'none') return text;
  return text.replace(syntax === 'settings' ? SETTINGS_REF : CLAUDE_REF, '');
}

/** The names of the variables `text` refers to in `syntax`, each once, in order. */
export function referenceNames(text: string, syntax: ExpansionSyntax): string[] {
  const names: string[] = [];
  replaceReferences(text, syntax, (_match, name) => {
    if (!names.includes(name)) names.push(name);
    return '';
  });
  return names;
}

/** `text` with every reference of `syntax` replaced by what `by` returns for it. */
export function replaceReferences(
  text: string,
  syntax: ExpansionSyntax,
  by: (match: string, name: string) => string,
): string {
  if (syntax === 'none' || !text.includes('$')) return text;
  if (syntax === 'settings')
    return text.replace(
      SETTINGS_REF,
      (match, bare: string | undefined, braced: string | undefined) =>
        by(match, (bare ?? braced) as string),
    );
  return text.replace(CLAUDE_REF, (match, name: string) => by(match, name));
}

/** The fields of a server a `.mcp.json` (Claude syntax) expands; the others are plain text. */
const CLAUDE_FIELDS: ReadonlySet<string> = new Set(MCP_CLAUDE_FIELDS.map(([field]) => field));

/** How `field` of a server written in `syntax` is expanded (`none`: taken as written). */
export function syntaxOfField(syntax: ExpansionSyntax, field: string): ExpansionSyntax {
  return syntax === 'claude' && !CLAUDE_FIELDS.has(field) ? 'none' : syntax;
}
