/**
 * What `mcpctl add`'s words make: one server entry in the `.mcp.json` shape (the one Claude
 * Code writes: `type` with `command`/`args`/`env`, or with `url`/`headers`), and how it is shown
 * back with its secrets hidden.
 *
 * Guarantees:
 * - `--env K=V`: K a shell variable name, V anything after the first `=` (`${VAR}` kept for the
 *   session's environment to fill). `--header K:V` (or `K: V`): K an HTTP header name, V without
 *   CR, LF or NUL (a line break in a header is a second header). A bad one is a UsageError
 *   (exit 2) naming the flag and the fix, and quoting nothing of the value.
 * - A stdio entry needs a command and takes no header; a URL entry (`--url`, or the first word
 *   with `--transport http|sse`) takes no command, args or env. Both at once is a UsageError.
 * - `shownEntry` is the entry as JSON with every env and header value and every secret part of
 *   the URL hidden (api/redact.ts, the `.mcp.json` syntax: `${VAR}` shown as written).
 */
import { redact } from '../../api/index.js';
import { UsageError } from '../errors.js';

export type Transport = 'stdio' | 'http' | 'sse';
export const TRANSPORTS: readonly Transport[] = ['stdio', 'http', 'sse'];

export interface EntryWords {
  /** The words after NAME: a command and its args, or (with http/sse) the URL. */
  readonly words: readonly string[];
  readonly url?: string;
  readonly transport?: Transport;
  readonly env: readonly string[];
  readonly headers: readonly string[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function envOf(pairs: readonly string[]): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0 || !ENV_NAME.test(key))
      throw new UsageError(
        `--env takes KEY=VALUE with KEY a variable name (letters, digits, "_"; not first a digit), e.g. --env API_KEY='\${API_KEY}'`,
      );
    env[key] = pair.slice(eq + 1);
  }
  return env;
}

function headersOf(pairs: readonly string[]): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const headers: Record<string, string> = {};
  for (const pair of pairs) {
    const colon = pair.indexOf(':');
    const key = colon < 0 ? pair : pair.slice(0, colon).trim();
    if (colon < 0 || !HEADER_NAME.test(key))
      throw new UsageError(
        `--header takes NAME:VALUE with NAME an HTTP header name, e.g. --header 'Authorization: Bearer \${TOKEN}'`,
      );
    const value = pair.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value))
      throw new UsageError(
        `--header ${key}: the value holds a line break or NUL, which would make a second header; give it on one line`,
      );
    headers[key] = value;
  }
  return headers;
}

function urlEntry(url: string, transport: Transport, w: EntryWords): Record<string, unknown> {
  if (w.env.length > 0)
    throw new UsageError(
      '--env is for a server mcpctl starts (stdio); a remote server gets --header',
    );
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  // `${VAR}` stands for a URL the agent's environment gives; anything else must be one.
  if (
    !/^\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(url) &&
    parsed?.protocol !== 'http:' &&
    parsed?.protocol !== 'https:'
  )
    throw new UsageError(
      `--url takes an http:// or https:// URL (or \${VAR}); for a server mcpctl starts, give its command after --`,
    );
  const headers = headersOf(w.headers);
  return { type: transport, url, ...(headers === undefined ? {} : { headers }) };
}

/** The entry the words make (see the module doc). */
export function entryOf(w: EntryWords): Record<string, unknown> {
  const transport = w.transport ?? (w.url === undefined ? 'stdio' : 'http');
  if (w.url !== undefined) {
    if (transport === 'stdio' || w.words.length > 0)
      throw new UsageError(
        '--url and a command exclude each other: give --url URL for a remote server, or -- COMMAND ARGS… for one mcpctl starts',
      );
    return urlEntry(w.url, transport, w);
  }
  const [first, ...rest] = w.words;
  if (transport !== 'stdio') {
    if (first === undefined || rest.length > 0)
      throw new UsageError(`--transport ${transport} takes one URL: mcpctl add NAME --url URL`);
    return urlEntry(first, transport, w);
  }
  if (first === undefined || first.trim() === '')
    throw new UsageError(
      'give the command that starts the server after --, e.g. mcpctl add fs -- npx -y @modelcontextprotocol/server-filesystem ~/src (or --url URL for a remote one)',
    );
  if (w.headers.length > 0)
    throw new UsageError('--header is for a remote server (--url); a stdio server gets --env');
  const env = envOf(w.env);
  return {
    type: 'stdio',
    command: first,
    args: rest,
    ...(env === undefined ? {} : { env }),
  };
}

/** The entry as JSON, its secrets hidden (see the module doc). */
export function shownEntry(entry: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(redact(entry, 'claude'), null, 2);
}
