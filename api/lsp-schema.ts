/**
 * Validation of a parsed `.lsp.json` / `--lsp-config` document: a top-level key per language
 * server (its shape: lsp-config.ts), and where a server's workspace folder is.
 *
 * Guarantees (the MCP rules of schema.ts, with its helpers):
 * - A bad entry yields errors naming the server, the field path, what was expected and the fix,
 *   e.g. `typescript.extensionToLanguage: expected an object mapping extensions such as ".ts"
 *   to language ids, got a string`.
 * - `command` and `extensionToLanguage` are required: each missing one is an error naming it.
 *   Every key of `extensionToLanguage` starts with "." and every language id is non-empty.
 * - `transport` "socket" or "tcp" is an error (mcpctl starts language servers over stdio only);
 *   `host`, `port` and `path` are then never used, so they are warnings.
 * - A relative `workspaceFolder` never climbs out of the workspace (`../x`); whether an
 *   absolute one is inside needs the workspace: workspaceFolderOf() decides, and refuses what
 *   is outside — never silently the root.
 * - `startupTimeout` and `shutdownTimeout` are whole milliseconds a timer can wait (at most
 *   2^31 − 1: Node fires a longer timer at once).
 * - No message quotes a value of the file (schema.ts): a bad one is described by its type.
 * - Unknown fields are kept and reported as warnings, never errors.
 * - A server name that is empty or holds a control character is an error, shown escaped.
 * - Entries are validated once per entry object (the informer shares unchanged subtrees from
 *   save to save), so an unchanged entry keeps its config object.
 */
import path from 'node:path';
import { languageServerConfigSchema, type LanguageServerConfig } from './lsp-config.js';
import { describeType } from './redact.js';
import {
  fieldIssues,
  formatPath,
  quoteName,
  serverNameIssue,
  unknownFieldWarnings,
  type ConfigIssue,
  type ConfigPath,
  type FieldWords,
} from './schema.js';
import { isObject } from './is-object.js';

const LSP_WORDS: FieldWords = {
  fields: {
    command: 'a non-empty string (the program that starts the language server)',
    args: 'an array of strings',
    env: 'an object of string values',
    extensionToLanguage: 'an object mapping extensions such as ".ts" to language ids',
    transport: '"stdio" (mcpctl starts language servers over stdio only)',
    host: 'a string',
    port: 'a whole number',
    path: 'a string',
    initializationOptions: 'any JSON value',
    settings: 'any JSON value',
    workspaceFolder: 'a non-empty path, relative to the workspace or absolute inside it',
    startupTimeout: 'a positive whole number of milliseconds',
    shutdownTimeout: 'a positive whole number of milliseconds',
    restartOnCrash: 'true or false',
    maxRestarts: 'a whole number, 0 or more',
    disabled: 'true or false',
  },
  elements: {
    args: 'a string',
    env: 'a string',
    extensionToLanguage: 'a language id (a string such as "typescript")',
  },
};

export const KNOWN_LANGUAGE_SERVER_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(LSP_WORDS.fields),
);

/** Node's timers fire at once for a longer delay, so a longer timeout would mean none at all. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const TIMEOUT_FIELDS = ['startupTimeout', 'shutdownTimeout'] as const;

/** Fields of a socket or TCP transport, which mcpctl never uses. */
const SOCKET_FIELDS = ['host', 'port', 'path'] as const;

export interface LanguageServerValidation {
  readonly config?: LanguageServerConfig;
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

/** The language servers one file configures, by name: what a `.lsp.json` source holds. */
export type LanguageServerConfigs = Readonly<Record<string, LanguageServerConfig>>;

export interface LanguageServerDocumentValidation {
  /** The valid entries by name (a null-prototype map: "__proto__" is an ordinary name). */
  readonly servers: Record<string, LanguageServerConfig>;
  readonly errors: ConfigIssue[];
  readonly warnings: ConfigIssue[];
}

function issue(path: ConfigPath, text: string): ConfigIssue {
  return { path, message: `${formatPath(path)}: ${text}` };
}

/** True when a relative path, normalised, leaves the folder it is relative to. */
function climbsOut(relative: string): boolean {
  const normal = path.normalize(relative);
  return normal === '..' || normal.startsWith(`..${path.sep}`);
}

/** The extension a key such as "ts" or "*.ts" meant, quoted; ".ts" when it cannot be told. */
function dotted(key: string): string {
  const bare = key.replace(/^[*.]+/, '');
  return /^[A-Za-z0-9_+-]{1,16}$/.test(bare) ? `".${bare}"` : '".ts"';
}

/** The rules zod's shape cannot say, checked on the raw entry so every problem is reported. */
function ruleIssues(
  raw: Record<string, unknown>,
  base: ConfigPath,
): {
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
} {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  if (raw.command === undefined)
    errors.push(
      issue(
        [...base, 'command'],
        'missing; add the program that starts the language server, e.g. "command": "typescript-language-server"',
      ),
    );
  const map = raw.extensionToLanguage;
  if (map === undefined)
    errors.push(
      issue(
        [...base, 'extensionToLanguage'],
        'missing; add the files it handles and their language ids, e.g. "extensionToLanguage": {".ts": "typescript"}',
      ),
    );
  else if (isObject(map)) {
    const keys = Object.keys(map);
    if (keys.length === 0)
      errors.push(
        issue(
          [...base, 'extensionToLanguage'],
          'no extensions, so no file would ever reach the server; add at least one, e.g. {".ts": "typescript"}',
        ),
      );
    for (const ext of keys) {
      const at = [...base, 'extensionToLanguage', ext];
      if (!ext.startsWith('.') || ext.length < 2)
        errors.push({
          path: at,
          message: `${formatPath([...base, 'extensionToLanguage'])}: the key ${quoteName(ext)} is not an extension; write it with its dot, e.g. ${dotted(ext)}`,
        });
      else if (map[ext] === '')
        errors.push({
          path: at,
          message: `${formatPath([...base, 'extensionToLanguage'])}: the language id of ${quoteName(ext)} is empty; give the LSP language id, e.g. "typescript"`,
        });
    }
  }
  if (raw.transport === 'socket' || raw.transport === 'tcp') {
    errors.push(
      issue(
        [...base, 'transport'],
        `a socket or TCP transport is not supported: mcpctl starts language servers over stdio only; remove "transport" or set it to "stdio"`,
      ),
    );
  }
  for (const field of SOCKET_FIELDS)
    if (raw[field] !== undefined)
      warnings.push(
        issue(
          [...base, field],
          'not used: mcpctl talks to language servers over stdio, so host, port and path mean nothing; remove it',
        ),
      );
  for (const field of TIMEOUT_FIELDS) {
    const value = raw[field];
    if (typeof value === 'number' && Number.isInteger(value) && value > MAX_TIMER_MS)
      errors.push(
        issue(
          [...base, field],
          `more than a timer can wait (${MAX_TIMER_MS} ms, about 24 days); use a smaller number of milliseconds`,
        ),
      );
  }
  const folder = raw.workspaceFolder;
  if (typeof folder === 'string' && folder !== '') {
    if (folder.includes('\0'))
      errors.push(issue([...base, 'workspaceFolder'], 'a path must not contain a NUL character'));
    else if (!path.isAbsolute(folder) && climbsOut(folder))
      errors.push(
        issue(
          [...base, 'workspaceFolder'],
          `the path leaves the workspace; use a folder inside it (relative to the workspace root, e.g. "packages/app"), or remove the field for the root`,
        ),
      );
  }
  return { errors, warnings };
}

/** Validates one entry found at `base` (`[name]` in a `.lsp.json`). */
export function validateLanguageServerConfig(
  raw: unknown,
  base: ConfigPath,
): LanguageServerValidation {
  if (!isObject(raw))
    return {
      errors: [
        issue(base, `expected an object describing the language server, got ${describeType(raw)}`),
      ],
      warnings: [],
    };
  const unknown = unknownFieldWarnings(raw, base, KNOWN_LANGUAGE_SERVER_FIELDS);
  const parsed = languageServerConfigSchema.safeParse(raw);
  const rules = ruleIssues(raw, base);
  const errors = parsed.success
    ? rules.errors
    : [...fieldIssues(raw, base, parsed.error.issues, LSP_WORDS), ...rules.errors];
  const warnings = [...unknown, ...rules.warnings];
  if (!parsed.success || errors.length > 0) return { errors, warnings };
  return { config: parsed.data, errors, warnings };
}

/** Results by entry object and name (see the module doc); weak: forgotten with the document. */
const entryCache = new WeakMap<
  object,
  { readonly name: string; readonly result: LanguageServerValidation }
>();

function validatedEntry(name: string, raw: unknown): LanguageServerValidation {
  const cacheable = raw !== null && typeof raw === 'object';
  const hit = cacheable ? entryCache.get(raw) : undefined;
  if (hit !== undefined && hit.name === name) return hit.result;
  const result = validateLanguageServerConfig(raw, [name]);
  if (cacheable) entryCache.set(raw, { name, result });
  return result;
}

/**
 * Validates a parsed `.lsp.json` document: a top-level key per server. A missing or null
 * document is empty. Returned objects are shared between calls: never mutate them.
 */
export function validateLanguageServerDocument(doc: unknown): LanguageServerDocumentValidation {
  const servers = Object.create(null) as Record<string, LanguageServerConfig>;
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  if (doc === undefined || doc === null) return { servers, errors, warnings };
  if (!isObject(doc)) {
    errors.push({
      path: [],
      message: `expected a JSON object with a key per language server, e.g. {"typescript": {"command": "typescript-language-server", "args": ["--stdio"], "extensionToLanguage": {".ts": "typescript"}}}, got ${describeType(doc)}`,
    });
    return { servers, errors, warnings };
  }
  for (const name of Object.keys(doc)) {
    const badName = serverNameIssue(name, [], 'language server');
    if (badName !== undefined) {
      errors.push(badName);
      continue;
    }
    const v = validatedEntry(name, doc[name]);
    errors.push(...v.errors);
    warnings.push(...v.warnings);
    if (v.config) servers[name] = v.config;
  }
  return { servers, errors, warnings };
}

export type WorkspaceFolderResult =
  { readonly ok: true; readonly folder: string } | { readonly ok: false; readonly message: string };

/**
 * The folder a language server works on: its `workspaceFolder` resolved against `workspace`
 * (absolute), else `workspace` itself. A folder outside the workspace is refused with a message
 * naming the field (prefixed with `name` when given) and the workspace; never the root instead.
 * Lexical (path.resolve): a symlink inside the workspace is taken as inside.
 */
export function workspaceFolderOf(
  config: Pick<LanguageServerConfig, 'workspaceFolder'>,
  workspace: string,
  name?: string,
): WorkspaceFolderResult {
  const root = path.resolve(workspace);
  const written = config.workspaceFolder;
  if (written === undefined) return { ok: true, folder: root };
  const folder = path.resolve(root, written);
  const rel = path.relative(root, folder);
  if (rel === '' || (!climbsOut(rel) && !path.isAbsolute(rel))) return { ok: true, folder };
  const field = name === undefined ? 'workspaceFolder' : formatPath([name, 'workspaceFolder']);
  return {
    ok: false,
    message: `${field}: the folder it names is outside the workspace ${root}; use a folder inside the workspace, or remove the field for the workspace root`,
  };
}
