/**
 * Equality with the exact semantics of DESIGN §4 rules 3 and 5.
 *
 * - Server maps: object key order ignored, array order (args) respected, `undefined ≡ {}`.
 * - Gating: lists compare as sets; `excluded`/`pending` `undefined ≡ []`; `allowed` absent
 *   (everyone) is not `[]` (no one).
 */
import stableStringify from 'json-stable-stringify';
import type { McpServerConfig } from './schema.js';

export function canonicalJson(value: unknown): string {
  return stableStringify(value) ?? 'undefined';
}

export function serverConfigEqual(
  a: McpServerConfig | undefined,
  b: McpServerConfig | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

export function mcpServersEqual(
  a: Record<string, McpServerConfig> | undefined,
  b: Record<string, McpServerConfig> | undefined,
): boolean {
  return canonicalJson(a ?? {}) === canonicalJson(b ?? {});
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
