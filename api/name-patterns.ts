/**
 * Server-name patterns of the gating lists (`mcp.allowed`, `mcp.excluded`, the ceilings), as
 * Qwen Code matches them since it took globs: an entry with `*` (any run of characters, also
 * none) or `?` (exactly one character) is a pattern over the whole name; any other entry is the
 * name itself. Case counts, nothing else is special (no brackets, no escapes).
 *
 * Guarantees:
 * - An entry without `*` or `?` matches exactly that name (the lists' old meaning, unchanged).
 * - Matching is linear in name × pattern (no backtracking blow-up on `*a*a*a*…`): a hostile
 *   settings file cannot stall a reconcile.
 * - Characters are code units, as Qwen's matcher compares them, so both agree on any name.
 */

export function isNamePattern(entry: string): boolean {
  return entry.includes('*') || entry.includes('?');
}

/** Whether `name` is matched by one gating-list entry. */
export function matchesNamePattern(name: string, entry: string): boolean {
  if (!isNamePattern(entry)) return name === entry;
  // matched[j]: the first i characters of the name (for the i of the outer loop) are
  // matched by the first j characters of the entry.
  let matched: boolean[] = new Array<boolean>(entry.length + 1).fill(false);
  matched[0] = true;
  for (let j = 1; j <= entry.length && entry[j - 1] === '*'; j++) matched[j] = true;
  for (let i = 1; i <= name.length; i++) {
    const next: boolean[] = new Array<boolean>(entry.length + 1).fill(false);
    for (let j = 1; j <= entry.length; j++) {
      const p = entry[j - 1];
      if (p === '*') next[j] = next[j - 1] || matched[j];
      else if (p === '?' || p === name[i - 1]) next[j] = matched[j - 1];
    }
    matched = next;
  }
  return matched[entry.length];
}

/**
 * A gating list as a test: exact names by set lookup, patterns one by one (a list of thousands
 * of names stays a lookup per server).
 */
export function namePatternTest(entries: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const patterns: string[] = [];
  for (const e of entries) {
    if (isNamePattern(e)) patterns.push(e);
    else exact.add(e);
  }
  return (name) => exact.has(name) || patterns.some((p) => matchesNamePattern(name, p));
}
