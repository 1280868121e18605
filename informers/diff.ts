/**
 * Which server names a move from one desired state to the next affects (pure).
 *
 * Guarantees:
 * - A name is affected when it was added or removed, when its config changed
 *   (serverConfigEqual: key order ignored, array order kept), when it moved to another scope or
 *   file (its gating and provenance changed even if the config did not), or when its membership
 *   in `excluded`, the effective allowlist or `pending` changed. An allowlist appearing or
 *   disappearing moves every name it admits differently.
 * - A trust flip affects every name of both states.
 * - Nothing else counts: an edit that moves neither servers nor gating affects no name.
 * - Names come back sorted and unique.
 * - sourceErrorsChanged() is true when any source's errors differ (became invalid, was fixed,
 *   or now reports other errors), so the session's ConfigValid condition can follow.
 */
import {
  canonicalJson,
  serverConfigEqual,
  type ComputedGating,
  type DesiredServers,
} from '../api/index.js';
import type { DesiredState, SourceStatus } from './types.js';

function membership(name: string, gating: ComputedGating): string {
  const excluded = gating.excluded.includes(name);
  const allowed = gating.allowed === undefined || gating.allowed.includes(name);
  const pending = gating.pending.includes(name);
  return `${excluded ? 'x' : '-'}${allowed ? 'a' : '-'}${pending ? 'p' : '-'}`;
}

function gatingNames(gating: ComputedGating): string[] {
  return [...gating.excluded, ...(gating.allowed ?? []), ...gating.pending];
}

/** Names whose gating membership differs between two gating results. */
export function gatingMovedNames(
  before: ComputedGating,
  after: ComputedGating,
  candidates: Iterable<string>,
): string[] {
  const universe = new Set([...candidates, ...gatingNames(before), ...gatingNames(after)]);
  return [...universe].filter((n) => membership(n, before) !== membership(n, after)).sort();
}

/** Names whose desired spec (config, scope or source file) differs. */
export function specChangedNames(before: DesiredServers, after: DesiredServers): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter((name) => {
      const a = before[name];
      const b = after[name];
      if (a === undefined || b === undefined) return a !== b;
      return !serverConfigEqual(a.config, b.config) || a.scope !== b.scope || a.source !== b.source;
    })
    .sort();
}

export function affectedNames(before: DesiredState, after: DesiredState): string[] {
  const all = [...Object.keys(before.servers), ...Object.keys(after.servers)];
  if (before.trusted !== after.trusted) return [...new Set(all)].sort();
  const out = new Set([
    ...specChangedNames(before.servers, after.servers),
    ...gatingMovedNames(before.gating, after.gating, all),
  ]);
  return [...out].sort();
}

export function sourceErrorsChanged(
  before: readonly SourceStatus[],
  after: readonly SourceStatus[],
): boolean {
  const errorsOf = (sources: readonly SourceStatus[]) =>
    canonicalJson(sources.map((s) => ({ file: s.file, scope: s.scope, errors: s.errors })));
  return errorsOf(before) !== errorsOf(after);
}
