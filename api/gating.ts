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
 * - One function for both kinds: language servers pass no settings, so their allowlist is the
 *   `--allowed-lsp-server-names` ceiling (absent: all) and nothing is excluded.
 * - An entry with `*` or `?` is a pattern (name-patterns.ts, as Qwen Code reads them): the lists
 *   computed here hold the plain entries as written plus every configured server name a pattern
 *   matches, so `isExcluded` / `isInAllowlist` stay exact lookups and a list of plain names means
 *   what it always meant.
 */
import type { DesiredServer } from './assemble.js';
import type { Gating } from './equality.js';
import type { DesiredLanguageServer } from './lsp-config.js';
import type { McpSettings } from './schema.js';
import { isNamePattern, namePatternTest } from './name-patterns.js';
import { isGatedScope, type ApprovalState, type Scope } from './scope.js';

/** What gating needs of a desired server of either kind (McpServer, LanguageServer). */
export interface GatedEntry {
  readonly name: string;
  readonly scope: Scope;
}

/** A session's approval state of one desired server of kind `S`. */
export type ApprovalLookupOf<S extends GatedEntry> = (server: S) => ApprovalState;
export type ApprovalLookup = ApprovalLookupOf<DesiredServer>;
export type LanguageServerApprovalLookup = ApprovalLookupOf<DesiredLanguageServer>;

/**
 * The allowlist in force: the ceiling capped by the settings' list (edits narrow, never widen).
 * `names`: the configured servers, the only names a pattern entry can stand for here; asked for
 * only when an entry is a pattern.
 */
export function effectiveAllowed(
  settingsAllowed: readonly string[] | undefined,
  ceiling: readonly string[] | undefined,
  names: () => readonly string[] = () => [],
): string[] | undefined {
  const lists = [ceiling, settingsAllowed].filter((l): l is readonly string[] => l !== undefined);
  return lists.length === 0 ? undefined : matchedByEvery(lists, names);
}

/**
 * The names every list matches: its plain entries, and (when a list has a pattern) the
 * configured names; each once, first occurrence first. One list: that list's names.
 */
function matchedByEvery(lists: readonly (readonly string[])[], names: () => readonly string[]) {
  const entries = lists.flat();
  const plain = entries.filter((e) => !isNamePattern(e));
  if (lists.length === 1 && plain.length === entries.length) return [...entries];
  const tests = lists.map(namePatternTest);
  const candidates = plain.length === entries.length ? plain : [...plain, ...names()];
  const out = new Set<string>();
  for (const n of candidates) if (!out.has(n) && tests.every((t) => t(n))) out.add(n);
  return [...out];
}

/**
 * Qwen Code's merge of one gating list over the settings layers: every layer's list joined,
 * lowest first, each entry once (no layer takes back another's entry); absent when no layer has
 * one, so `allowed: []` alone stays deny-all.
 */
export function joinGatingLists(
  listsLowestFirst: readonly (readonly string[] | undefined)[],
): string[] | undefined {
  const given = listsLowestFirst.filter((l): l is readonly string[] => l !== undefined);
  return given.length === 0 ? undefined : [...new Set(given.flat())];
}

/** Gating of one kind's servers; language servers have no settings section (`undefined`). */
export interface GatingInput<S extends GatedEntry = DesiredServer> {
  readonly settings: McpSettings | undefined;
  readonly servers: Readonly<Record<string, S>>;
  readonly ceiling?: readonly string[];
  readonly approvals: ApprovalLookupOf<S>;
}

export interface ComputedGating extends Gating {
  readonly excluded: readonly string[];
  readonly pending: readonly string[];
}

/**
 * The servers of a map that `keep` selects, by name, sorted. Keys then lookups: Object.values on
 * a map of thousands of servers (a dictionary-mode object) is several times slower.
 */
function namesWhere<S extends GatedEntry>(
  servers: Readonly<Record<string, S>>,
  keep: (s: S) => boolean,
): string[] {
  const out: string[] = [];
  for (const name of Object.keys(servers)) {
    const s = servers[name];
    if (keep(s)) out.push(s.name);
  }
  return out.sort();
}

export function computeGating<S extends GatedEntry>(input: GatingInput<S>): ComputedGating {
  const pending = namesWhere(
    input.servers,
    (s) => isGatedScope(s.scope) && input.approvals(s) !== 'approved',
  );
  // Only a pattern entry needs the configured names: most lists have none.
  const names = () => Object.keys(input.servers).sort();
  const allowed = effectiveAllowed(input.settings?.allowed, input.ceiling, names);
  const excluded = matchedByEvery([input.settings?.excluded ?? []], names);
  return allowed === undefined ? { excluded, pending } : { excluded, allowed, pending };
}

/** Strict list: only servers whose state is exactly `pending` may be prompted for. */
export function promptableServers<S extends GatedEntry>(
  servers: Readonly<Record<string, S>>,
  approvals: ApprovalLookupOf<S>,
): string[] {
  return namesWhere(servers, (s) => isGatedScope(s.scope) && approvals(s) === 'pending');
}

export function isExcluded(name: string, gating: Gating): boolean {
  return (gating.excluded ?? []).includes(name);
}

export function isInAllowlist(name: string, gating: Gating): boolean {
  return gating.allowed === undefined || gating.allowed.includes(name);
}
