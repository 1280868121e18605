/**
 * Which server names a move from one desired state to the next affects (pure), per kind (each
 * kind's `servers` and `gating`), by the same rules; a change of one kind never names a server of the other.
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
  jsonEqual,
  perKind,
  type ComputedGating,
  type PerKind,
  type Scope,
  type ServerKind,
} from '../api/index.js';
import type { DesiredState, KindDesired, SourceStatus } from './types.js';

function membership(name: string, gating: ComputedGating): string {
  const excluded = gating.excluded.includes(name);
  const allowed = gating.allowed === undefined || gating.allowed.includes(name);
  const pending = gating.pending.includes(name);
  return `${excluded ? 'x' : '-'}${allowed ? 'a' : '-'}${pending ? 'p' : '-'}`;
}

function gatingNames(gating: ComputedGating): string[] {
  return [...gating.excluded, ...(gating.allowed ?? []), ...gating.pending];
}

/**
 * Names whose gating membership differs between two gating results. A name on none of the lists
 * has the same membership on both sides unless the allowlist appeared or disappeared, so the
 * candidates (every server) are only looked at then.
 */
export function gatingMovedNames(
  before: ComputedGating,
  after: ComputedGating,
  candidates: Iterable<string>,
): string[] {
  const allowlistFlipped = (before.allowed === undefined) !== (after.allowed === undefined);
  const universe = new Set([...gatingNames(before), ...gatingNames(after)]);
  if (allowlistFlipped) for (const name of candidates) universe.add(name);
  return [...universe].filter((n) => membership(n, before) !== membership(n, after)).sort();
}

/** What the spec comparison needs of a desired server of either kind. */
interface DesiredEntry {
  readonly config: object;
  readonly scope: Scope;
  readonly source: string;
}

type DesiredMap = Readonly<Record<string, DesiredEntry>>;

function sameSpec(a: DesiredEntry, b: DesiredEntry): boolean {
  if (a === b) return true;
  return jsonEqual(a.config, b.config) && a.scope === b.scope && a.source === b.source;
}

/** Names whose desired spec (config, scope or source file) differs. */
export function specChangedNames(before: DesiredMap, after: DesiredMap): string[] {
  const out: string[] = [];
  for (const name of Object.keys(before)) {
    const b = Object.prototype.hasOwnProperty.call(after, name) ? after[name] : undefined;
    // Unchanged configs are the same objects from save to save, so this is mostly a reference check.
    if (b === undefined || !sameSpec(before[name], b)) out.push(name);
  }
  for (const name of Object.keys(after)) {
    if (!Object.prototype.hasOwnProperty.call(before, name)) out.push(name);
  }
  return out.sort();
}

function affectedOfKind(
  before: KindDesired<DesiredMap>,
  after: KindDesired<DesiredMap>,
  trustFlipped: boolean,
): string[] {
  if (trustFlipped)
    return [...new Set([...Object.keys(before.servers), ...Object.keys(after.servers)])].sort();
  const candidates = function* () {
    yield* Object.keys(before.servers);
    yield* Object.keys(after.servers);
  };
  const out = new Set([
    ...specChangedNames(before.servers, after.servers),
    ...gatingMovedNames(before.gating, after.gating, candidates()),
  ]);
  return [...out].sort();
}

/** The names of `kind` the move affects (trust admits both kinds alike). */
export function affectedNames(
  before: DesiredState,
  after: DesiredState,
  kind: ServerKind,
): string[] {
  return affectedOfKind(before.kinds[kind], after.kinds[kind], before.trusted !== after.trusted);
}

/** The names of every kind the move affects. */
export function affectedNamesByKind(
  before: DesiredState,
  after: DesiredState,
): PerKind<readonly string[]> {
  return perKind((kind) => affectedNames(before, after, kind));
}

export function sourceErrorsChanged(
  before: readonly SourceStatus[],
  after: readonly SourceStatus[],
): boolean {
  const errorsOf = (sources: readonly SourceStatus[]) =>
    canonicalJson(sources.map((s) => ({ file: s.file, scope: s.scope, errors: s.errors })));
  return errorsOf(before) !== errorsOf(after);
}
