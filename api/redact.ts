/**
 * Secrets stay hidden: env and header values, OAuth secrets, and the secret parts of URLs are
 * replaced in every output unless the caller explicitly asks for them (`--show-secrets`).
 *
 * Guarantees:
 * - `redactUrl` keeps scheme, host, port, path and the query's keys, and hides the userinfo,
 *   every query value and the fragment (`https://<redacted>@h/mcp?token=<redacted>`): tokens
 *   travel there (`?api_key=`, `#access_token=`, `https://TOKEN@host`). `redact` applies it to
 *   `url`, `httpUrl` and the `oauth` endpoints; `scrubUrl` to every place a message quotes the
 *   URL or its secrets.
 * - `isSecretField` names the server fields whose values may be or carry a secret (env, headers,
 *   oauth, and the URLs, whose query or userinfo may hold a token). Validation messages quote
 *   no value at all, of these fields or any other: `describeType` says what type was found.
 *
 * A value that is a reference to the agent's environment (`${GITHUB_TOKEN}`, `Bearer ${TOKEN}`)
 * is shown as the file wrote it: the text holds no secret, and seeing which variable a server
 * reads is what a user needs to debug it (and what a user approving it must see: it is what
 * the server will be sent). That holds in URLs too (`?k=${AWS_SECRET_ACCESS_KEY}`), but only in
 * the fields the file's client expands (`syntaxOfField`). Anything literal beyond an auth
 * scheme word is redacted whole.
 */
import {
  hasReference,
  literalPartOf,
  replaceReferences,
  syntaxOfField,
  type ExpansionSyntax,
} from './env-expansion.js';
import type { McpServerConfig } from './server-config.js';

export const REDACTED = '<redacted>';

const SECRET_FIELDS: ReadonlySet<string> = new Set(['env', 'headers', 'oauth', 'url', 'httpUrl']);

/** True for a server field whose value may be, or carry, a secret. */
export function isSecretField(field: string | number | undefined): boolean {
  return typeof field === 'string' && SECRET_FIELDS.has(field);
}

/** What a validation message says of a value instead of quoting it: its type only. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value === '' ? 'an empty string' : 'a string';
    case 'number':
    case 'bigint':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

const SECRET_OAUTH_KEYS = /secret|token|password|key/i;
/** What may stand literally beside a reference without being a secret itself. */
const SCHEME_WORD = /^\s*(bearer|basic|token)?\s*$/i;

/** True when `value` is shown as the file wrote it: references (and an auth scheme word) only. */
export function shownAsWritten(value: string, syntax: ExpansionSyntax): boolean {
  return hasReference(value, syntax) && SCHEME_WORD.test(literalPartOf(value, syntax));
}

/** A record's values (env, headers) hidden, references in `syntax` shown as written. */
export function redactValues(
  record: Record<string, string> | undefined,
  syntax: ExpansionSyntax,
): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [k, shownAsWritten(v, syntax) ? v : REDACTED]),
  );
}

/** A prefix for placeholders that `text` does not contain (letters only: every URL part keeps it). */
function placeholderPrefix(text: string): string {
  let prefix = 'mcpctlref';
  while (text.includes(prefix)) prefix += 'x';
  return prefix;
}

/** A URL parsed with its variable references kept aside, to be put back in what is shown. */
interface ParsedWithReferences {
  readonly url: URL;
  /** `part` of the parsed URL with the references back as the file wrote them. */
  readonly restore: (part: string) => string;
  /** True when `part` is nothing but references (so it holds no literal secret). */
  readonly onlyRefs: (part: string) => boolean;
}

function parseWithReferences(
  url: string,
  syntax: ExpansionSyntax,
): ParsedWithReferences | 'only-references' | undefined {
  // References become placeholders the URL parser keeps as they are.
  const refs: string[] = [];
  const prefix = placeholderPrefix(url);
  const text = replaceReferences(url, syntax, (match) => `${prefix}${refs.push(match) - 1}z`);
  const placeholder = new RegExp(`${prefix}(\\d+)z`, 'g');
  const restore = (part: string): string =>
    refs.length === 0 ? part : part.replace(placeholder, (_m, i: string) => refs[Number(i)] ?? '');
  const onlyRefs = (part: string): boolean =>
    refs.length > 0 && part !== '' && part.replace(placeholder, '') === '';
  if (onlyRefs(text)) return 'only-references'; // `"url": "${MCP_URL}"`
  try {
    return { url: new URL(text), restore, onlyRefs };
  } catch {
    return undefined;
  }
}

/**
 * A URL fit for output (see the module doc); what does not parse is hidden whole. With the
 * `syntax` of the file it was written in, a part that is only variable references (`?k=${KEY}`,
 * `https://${USER}:${PASS}@h`) is shown as written: the text holds no secret, and it says which
 * variable goes to the host. References elsewhere (host, path) are shown as written too.
 */
export function redactUrl(url: string, syntax: ExpansionSyntax = 'none'): string {
  const parsed = parseWithReferences(url, syntax);
  if (parsed === 'only-references') return url;
  if (parsed === undefined) return REDACTED;
  const { url: u, restore, onlyRefs } = parsed;
  const userinfoShown =
    u.username !== '' && [u.username, u.password].every((p) => p === '' || onlyRefs(p));
  const auth =
    u.username === '' && u.password === ''
      ? ''
      : userinfoShown
        ? `${restore(u.username)}${u.password === '' ? '' : `:${restore(u.password)}`}@`
        : `${REDACTED}@`;
  const query =
    u.search === ''
      ? ''
      : `?${u.search
          .slice(1)
          .split('&')
          .map((part) => {
            const eq = part.indexOf('=');
            // A bare `?abc123` may be the token itself.
            if (eq < 0) return part === '' ? '' : onlyRefs(part) ? restore(part) : REDACTED;
            const value = part.slice(eq + 1);
            return `${restore(part.slice(0, eq))}=${onlyRefs(value) ? restore(value) : REDACTED}`;
          })
          .join('&')}`;
  const hash = u.hash.slice(1);
  const fragment = u.hash === '' ? '' : `#${onlyRefs(hash) ? restore(hash) : REDACTED}`;
  return `${u.protocol}//${auth}${restore(u.host)}${restore(u.pathname)}${query}${fragment}`;
}

/**
 * The host (and port) a URL written in `syntax` reaches, as the file writes it (`api.test`,
 * `127.0.0.1:8080`, `${HOST}`); undefined when that cannot be told from the text.
 */
export function hostOfUrl(url: string, syntax: ExpansionSyntax = 'none'): string | undefined {
  const parsed = parseWithReferences(url, syntax);
  if (parsed === undefined || parsed === 'only-references' || parsed.url.host === '')
    return undefined;
  return parsed.restore(parsed.url.host);
}

/** Below this length a query value is not searched for alone in a message (it would hit words). */
const MIN_SECRET_LENGTH = 6;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The parts of `url` that may be secret, as written and decoded. */
function secretsOf(u: URL): string[] {
  const raw = [u.username, u.password, u.hash.slice(1)];
  for (const part of u.search.slice(1).split('&')) {
    const eq = part.indexOf('=');
    raw.push(eq < 0 ? part : part.slice(eq + 1));
  }
  return raw.flatMap((s) => [s, decoded(s)]).filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/**
 * Hides what may be secret in a text that may quote `url` (error messages of HTTP clients do):
 * the URL itself in any of its spellings becomes `redactUrl(url)`, its query values, userinfo
 * and fragment wherever they appear alone become `<redacted>`, and so does any `//user:pass@`.
 */
export function scrubUrl(text: string, url: string): string {
  const safe = redactUrl(url);
  let out = text;
  const spellings = new Set([url]);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
    spellings.add(parsed.href);
  } catch {
    // Not a URL: only its literal spelling can be found.
  }
  for (const s of [...spellings].sort((a, b) => b.length - a.length))
    if (s !== '') out = out.split(s).join(safe);
  if (parsed !== undefined) out = scrubSecrets(out, secretsOf(parsed));
  return out.replace(/\/\/[^/\s@<>]+@/g, `//${REDACTED}@`);
}

/** The `oauth` fields that hold an endpoint: shown like every URL (a URL is not a secret). */
const OAUTH_URL_KEYS: ReadonlySet<string> = new Set([
  'authorizationUrl',
  'tokenUrl',
  'registrationUrl',
  'redirectUri',
]);

function redactOAuthValue(key: string, value: unknown, syntax: ExpansionSyntax): unknown {
  if (OAUTH_URL_KEYS.has(key))
    return typeof value === 'string' ? redactUrl(value, syntax) : REDACTED;
  if (!SECRET_OAUTH_KEYS.test(key)) return value;
  return typeof value === 'string' && shownAsWritten(value, syntax) ? value : REDACTED;
}

/**
 * `syntax`: how the server's file writes variable references (see env-expansion.ts); a field
 * its client does not expand holds only literal text.
 */
export function redact(spec: McpServerConfig, syntax: ExpansionSyntax = 'none'): McpServerConfig {
  const out: McpServerConfig = { ...spec };
  if (spec.url !== undefined) out.url = redactUrl(spec.url, syntaxOfField(syntax, 'url'));
  if (spec.httpUrl !== undefined)
    out.httpUrl = redactUrl(spec.httpUrl, syntaxOfField(syntax, 'httpUrl'));
  if (spec.env) out.env = redactValues(spec.env, syntaxOfField(syntax, 'env'));
  if (spec.headers) out.headers = redactValues(spec.headers, syntaxOfField(syntax, 'headers'));
  if (spec.oauth) {
    const oauthSyntax = syntaxOfField(syntax, 'oauth');
    out.oauth = Object.fromEntries(
      Object.entries(spec.oauth).map(([k, v]) => [k, redactOAuthValue(k, v, oauthSyntax)]),
    );
  }
  return out;
}

/**
 * Replaces every occurrence of each secret in `text` with `<redacted>`. Values shorter than 4
 * characters are left alone: they cannot be told from ordinary words, and no real token is
 * that short.
 */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  const ordered = [...new Set(secrets)]
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length);
  for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
