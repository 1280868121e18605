/**
 * Gating lists of a session (DESIGN §4 rules 3, 4, 8).
 *
 * Guarantees:
 * - `excluded` always wins over `allowed`.
 * - With a ceiling (`--allowed-mcp-server-names`), effective allowed = ceiling ∩ settings'
 *   `mcp.allowed`, or the whole ceiling when settings has none: edits narrow, never widen.
 * - `allowed: []` stays `[]` (deny-all); it is never collapsed to absent.
 * - `pending` = gated servers whose approval state is not `approved` (so rejected ones stay
 *   down); `promptableServers` is the strict list of those whose state is exactly `pending`.
 */
import type { DesiredServer, DesiredServers } from './assemble.js';
import type { Gating } from './equality.js';
import type { McpSettings } from './schema.js';
import { isGatedScope, type ApprovalState } from './scope.js';

export type ApprovalLookup = (server: DesiredServer) => ApprovalState;

export function effectiveAllowed(
  settingsAllowed: readonly string[] | undefined,
  ceiling: readonly string[] | undefined,
): string[] | undefined {
  if (ceiling === undefined)
    return settingsAllowed === undefined ? undefined : [...settingsAllowed];
  if (settingsAllowed === undefined) return [...ceiling];
  const inSettings = new Set(settingsAllowed);
  return ceiling.filter((name) => inSettings.has(name));
}

export interface GatingInput {
  readonly settings: McpSettings | undefined;
  readonly servers: DesiredServers;
  readonly ceiling?: readonly string[];
  readonly approvals: ApprovalLookup;
}

export interface ComputedGating extends Gating {
  readonly excluded: readonly string[];
  readonly pending: readonly string[];
}

/**
 * The servers of a map that `keep` selects, by name, sorted. Keys then lookups: Object.values on
 * a map of thousands of servers (a dictionary-mode object) is several times slower.
 */
function namesWhere(servers: DesiredServers, keep: (s: DesiredServer) => boolean): string[] {
  const out: string[] = [];
  for (const name of Object.keys(servers)) {
    const s = servers[name];
    if (keep(s)) out.push(s.name);
  }
  return out.sort();
}

export function computeGating(input: GatingInput): ComputedGating {
  const pending = namesWhere(
    input.servers,
    (s) => isGatedScope(s.scope) && input.approvals(s) !== 'approved',
  );
  const allowed = effectiveAllowed(input.settings?.allowed, input.ceiling);
  const excluded = [...(input.settings?.excluded ?? [])];
  return allowed === undefined ? { excluded, pending } : { excluded, allowed, pending };
}

/** Strict list: only servers whose state is exactly `pending` may be prompted for. */
export function promptableServers(servers: DesiredServers, approvals: ApprovalLookup): string[] {
  return namesWhere(servers, (s) => isGatedScope(s.scope) && approvals(s) === 'pending');
}

export function isExcluded(name: string, gating: Gating): boolean {
  return (gating.excluded ?? []).includes(name);
}

export function isInAllowlist(name: string, gating: Gating): boolean {
  return gating.allowed === undefined || gating.allowed.includes(name);
}
