/**
 * Names of proxied tools and prompts, as the agent sees them.
 *
 * Two forms, told apart by construction:
 * - readable, `server__tool`: when the server name is "plain" (letters, digits, `-`, and single
 *   `_` only between them: no `__`, no leading or trailing `_`), the tool name uses only
 *   `[A-Za-z0-9_-]`, and the whole fits in 64 characters. Because a plain server name holds
 *   no `__` and does not end in `_`, the FIRST `__` of a readable name is always the boundary:
 *   `parseQualifiedName` gives the pair back, and `x` + `y__z` (`x__y__z`) can never equal
 *   `x__y` + `z` (not plain, so hashed).
 * - hashed, `stem_<16 hex>`: every other pair. The stem is the pair squeezed to
 *   `[A-Za-z0-9-]` words joined by single `_` (a hint for people, possibly empty); the hex is
 *   the first 64 bits of sha256 over the JSON of the pair. A hashed name never contains `__`,
 *   so it never equals a readable one; two hashed names are equal only if the hashes collide.
 *
 * Guarantees: the name is a pure function of (server, tool), so it is stable across listings,
 * reloads and restarts and does not depend on which other servers exist; it always matches
 * `^[A-Za-z0-9_-]{1,64}$` (what clients such as Claude accept); distinct pairs get distinct
 * names (by construction for readable names, up to a 64-bit hash collision otherwise, which
 * the gateway still detects and reports rather than misroutes).
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;
const SEPARATOR = '__';
const HASH_HEX = 16;

const PLAIN_SERVER = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
const PLAIN_TOOL = /^[A-Za-z0-9_-]+$/;

export interface QualifiedPair {
  readonly server: string;
  readonly tool: string;
}

export function qualifiedName(server: string, tool: string): string {
  const raw = `${server}${SEPARATOR}${tool}`;
  if (PLAIN_SERVER.test(server) && PLAIN_TOOL.test(tool) && raw.length <= MAX_TOOL_NAME) return raw;
  return hashedName(server, tool);
}

/**
 * The pair a readable name stands for (the inverse of `qualifiedName` on readable names), or
 * undefined for a name that is not readable (a hashed name names its pair only via a listing).
 */
export function parseQualifiedName(name: string): QualifiedPair | undefined {
  const at = name.indexOf(SEPARATOR);
  if (at < 0) return undefined;
  const pair = { server: name.slice(0, at), tool: name.slice(at + SEPARATOR.length) };
  return qualifiedName(pair.server, pair.tool) === name ? pair : undefined;
}

function hashedName(server: string, tool: string): string {
  // JSON, not a joined string: it keeps the boundary, and escapes lone surrogates that
  // UTF-8 encoding would otherwise fold into one U+FFFD.
  const hash = createHash('sha256')
    .update(JSON.stringify([server, tool]))
    .digest('hex')
    .slice(0, HASH_HEX);
  // Every run of anything but [A-Za-z0-9-] (including `_` itself) becomes one `_`, trimmed,
  // so neither the stem nor the stem/hash joint can form `__`.
  const stem = `${server}_${tool}`
    .replace(/[^A-Za-z0-9-]+/g, '_')
    .slice(0, MAX_TOOL_NAME - HASH_HEX - 1)
    .replace(/^_+|_+$/g, '');
  return stem === '' ? hash : `${stem}_${hash}`;
}
