/**
 * One server entry taken from an agent's file into mcpctl's server file: checked, its
 * variables converted, its secrets listed.
 *
 * Guarantees:
 * - `checkEntry` refuses an entry mcpctl would not read as the agent did (not an object, a
 *   field of the wrong type, no command or URL, a field mcpctl does not use), naming the file
 *   and the entry, quoting no value (api/'s validation words).
 * - `convertVariables` keeps each string's meaning: entries written in a settings file's
 *   syntax (Gemini, Qwen: `$VAR` and `${VAR}` in every string) get `${VAR}` in the fields the
 *   server file expands (command, args, env, url, httpUrl, headers); a reference in a field the
 *   server file takes as plain text (cwd, oauth, …), or text the server file would read as a
 *   reference where the agent did not (`${A:-b}` in a settings file), is refused by name, never
 *   guessed. Entries in the `.mcp.json` syntax (Claude) are copied as written.
 * - `secretsOf` lists every value that could be a secret (env and header values, oauth
 *   strings, URLs with their secret parts): the diff and every message hide them.
 */
import {
  hasReference,
  isObject,
  literalPartOf,
  normalizeServerConfig,
  quoteName,
  redactUrl,
  replaceReferences,
  syntaxOfField,
  validateSourceDocument,
} from '../../api/index.js';

/** A value never printed, and what is printed instead. */
export interface Secret {
  readonly value: string;
  readonly shown: string;
}

/** Why `raw` cannot be moved as it is, or undefined when it can. */
export function checkEntry(
  file: string,
  where: string,
  name: string,
  raw: unknown,
): string | undefined {
  const v = validateSourceDocument({ mcpServers: { [name]: raw } }, normalizeServerConfig);
  const first = v.errors[0];
  if (first !== undefined)
    return `${file}: ${where}: ${first.message}; fix or remove the entry, then run setup again`;
  // A field mcpctl would keep but not use: moved, the server would run without what it says.
  const unknown = v.warnings[0]?.path[2];
  if (unknown !== undefined)
    return `${file}: ${where}.${String(unknown)}: a field mcpctl does not use, so the server would not run as the agent runs it; remove it (or keep the server with the agent by hand), then run setup again`;
  return undefined;
}

export type Converted =
  | { readonly ok: true; readonly entry: Record<string, unknown>; readonly changed: boolean }
  | { readonly ok: false; readonly problem: string };

/** Every string in `value` (nested), replaced by `map`. */
function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, map);
    return out;
  }
  return value;
}

/**
 * `entry` (written in a settings file's syntax) in the server file's syntax; `where` names the
 * entry in messages.
 */
export function convertSettingsVariables(
  where: string,
  entry: Readonly<Record<string, unknown>>,
): Converted {
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const [field, value] of Object.entries(entry)) {
    const expands = syntaxOfField('claude', field) === 'claude';
    let problem: string | undefined;
    out[field] = mapStrings(value, (s) => {
      const literal = literalPartOf(s, 'settings');
      if (expands && hasReference(literal, 'claude'))
        problem ??= `${where}.${field} holds text mcpctl's server file would read as a variable (\${NAME:-…}); write it out, then run setup again`;
      if (!hasReference(s, 'settings')) return s;
      if (!expands) {
        problem ??= `${where}.${field} uses an environment variable, which mcpctl's server file does not expand in ${field}; write the value out, then run setup again`;
        return s;
      }
      const next = replaceReferences(s, 'settings', (_match, name) => `\${${name}}`);
      if (next !== s) changed = true;
      return next;
    });
    if (problem !== undefined) return { ok: false, problem };
  }
  return { ok: true, entry: out, changed };
}

/** What an editor's `${…}` becomes in the server file, or why it cannot be carried over. */
export type EditorVariable = (
  inner: string,
) => { readonly text: string } | { readonly problem: string };

/** Fields an editor's entry may hold that mcpctl would silently ignore: refused, not dropped. */
const UNCARRIED: ReadonlyMap<string, string> = new Map([
  ['envFile', 'mcpctl reads no env file: put the variables in env'],
  ['dev', 'a development-mode server (watch, debug) stays with the editor'],
]);

/**
 * `entry` written in an editor's syntax (VS Code, Cursor: `${env:NAME}`, `${userHome}`,
 * `${input:…}`, …) in the server file's, each `${…}` mapped by `variable`.
 */
export function convertEditorVariables(
  where: string,
  entry: Readonly<Record<string, unknown>>,
  variable: EditorVariable,
): Converted {
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const [field, value] of Object.entries(entry)) {
    const why = UNCARRIED.get(field);
    if (why !== undefined)
      return { ok: false, problem: `${where}.${field}: ${why}; then run setup again` };
    const expands = syntaxOfField('claude', field) === 'claude';
    let problem: string | undefined;
    out[field] = mapStrings(value, (s) =>
      s.replace(/\$\{([^}]*)\}/g, (match, inner: string) => {
        const mapped = variable(inner);
        if ('problem' in mapped) {
          problem ??= `${where}.${field}: \${${inner}}: ${mapped.problem}; write the value out (or move the server to mcpctl by hand), then run setup again`;
          return match;
        }
        if (!expands && mapped.text.includes('$')) {
          problem ??= `${where}.${field} uses an environment variable, which mcpctl's server file does not expand in ${field}; write the value out, then run setup again`;
          return match;
        }
        changed = true;
        return mapped.text;
      }),
    );
    if (problem !== undefined) return { ok: false, problem };
  }
  return { ok: true, entry: out, changed };
}

/** VS Code's and Cursor's `${env:NAME}`; `${userHome}` as `${HOME}` where `home` says so. */
export function editorVariable(extra: Readonly<Record<string, string>> = {}): EditorVariable {
  return (inner) => {
    const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
    if (env !== null) return { text: `\${${env[1]}}` };
    const known = extra[inner];
    if (known !== undefined) return { text: known };
    if (inner.startsWith('input:'))
      return { problem: 'an input the editor asks for, which mcpctl cannot ask' };
    return { problem: "an editor variable mcpctl's server file has no equal of" };
  };
}

/** A literal value with no variable in it (a reference alone holds no secret). */
function literalSecret(text: string): boolean {
  return (
    literalPartOf(text, 'claude')
      .replace(/^\s*(Bearer|Basic|Token)\s+/i, '')
      .trim() !== ''
  );
}

/** The values of `entry` (and of the entry as the agent wrote it) that must never be printed. */
export function secretsOf(entry: Readonly<Record<string, unknown>>): Secret[] {
  const out: Secret[] = [];
  const add = (value: unknown, shown = '<redacted>'): void => {
    if (typeof value === 'string' && value !== '' && literalSecret(value))
      out.push({ value, shown });
  };
  for (const field of ['env', 'headers']) {
    const map = entry[field];
    if (isObject(map)) for (const v of Object.values(map)) add(v);
  }
  for (const field of ['url', 'httpUrl', 'serverUrl']) {
    const url = entry[field];
    if (typeof url === 'string') {
      const shown = redactUrl(url);
      if (shown !== url) out.push({ value: url, shown });
    }
  }
  mapStrings(entry.oauth, (s) => {
    add(s);
    return s;
  });
  return out;
}

/** `"name"`, escaped for a message. */
export function named(name: string): string {
  return quoteName(name);
}
