/**
 * Names of proxied tools and prompts: `server__tool`.
 *
 * Guarantees: names are unique across servers (server names are unique and `__` separates);
 * only `[A-Za-z0-9_-]` appear (what clients such as Claude accept); a name longer than 64
 * characters, or one that had to be cleaned, ends in a stable 8-hex hash of the original pair,
 * so it never collides and never changes between listings.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;
const SEPARATOR = '__';

export function qualifiedName(server: string, tool: string): string {
  const raw = `${server}${SEPARATOR}${tool}`;
  const clean = raw.replace(/[^A-Za-z0-9_-]/g, '_');
  if (clean === raw && raw.length <= MAX_TOOL_NAME) return raw;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${clean.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}
