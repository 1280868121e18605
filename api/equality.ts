/**
 * Equality with the exact semantics of DESIGN §4 rules 3 and 5.
 *
 * - Server maps: object key order ignored, array order (args) respected, `undefined ≡ {}`.
 * - Gating: lists compare as sets; `excluded`/`pending` `undefined ≡ []`; `allowed` absent
 *   (everyone) is not `[]` (no one).
 */
import stableStringify from 'json-stable-stringify';
import type { McpServerConfig } from './server-config.js';

export function canonicalJson(value: unknown): string {
  return stableStringify(value) ?? 'undefined';
}

/**
 * Equality of parsed JSON values as canonical JSON would judge it (object key order ignored,
 * array order kept, `undefined`-valued keys absent), without building strings: the informer
 * compares whole documents and every server on each save, so this sits on the hot path.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let count = 0;
  for (const key of Object.keys(ra)) {
    if (ra[key] === undefined) continue;
    count++;
    if (!Object.prototype.hasOwnProperty.call(rb, key) || !jsonEqual(ra[key], rb[key]))
      return false;
  }
  for (const key of Object.keys(rb)) if (rb[key] !== undefined) count--;
  return count === 0;
}

export function serverConfigEqual(
  a: McpServerConfig | undefined,
  b: McpServerConfig | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  return jsonEqual(a, b);
}

export function mcpServersEqual(
  a: Record<string, McpServerConfig> | undefined,
  b: Record<string, McpServerConfig> | undefined,
): boolean {
  return jsonEqual(a ?? {}, b ?? {});
}

export interface Gating {
  /** Names that are blocked whatever else says. `undefined ≡ []`. */
  readonly excluded?: readonly string[];
  /** The allowlist. `undefined` = everyone; `[]` = no one. */
  readonly allowed?: readonly string[];
  /** Gated servers not approved for their current config. `undefined ≡ []`. */
  readonly pending?: readonly string[];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const x of sa) if (!sb.has(x)) return false;
  return true;
}

export function mcpGatingEqual(a: Gating, b: Gating): boolean {
  if (!sameSet(a.excluded ?? [], b.excluded ?? [])) return false;
  if (!sameSet(a.pending ?? [], b.pending ?? [])) return false;
  if (a.allowed === undefined || b.allowed === undefined) return a.allowed === b.allowed;
  return sameSet(a.allowed, b.allowed);
}
