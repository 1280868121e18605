/**
 * Structural sharing between two parses of the same file: the new document reuses every subtree
 * of the previous one that did not change.
 *
 * Why: a save usually touches one server among many. When the untouched entries keep their very
 * objects, everything downstream — validation (cached by entry identity), the restart gate, the
 * desired-state diff — decides "unchanged" with a reference check instead of walking them, so a
 * reload costs what the edit touched, not what the file holds.
 *
 * Guarantees:
 * - The result equals `next` as JSON data (same keys in the same order, same array items, same
 *   scalars); `previous` only lends it objects.
 * - A subtree of the result is `previous`'s own subtree at the same path exactly when the two are
 *   equal there, key order included (so a reordered object is a new object, its unchanged
 *   children still shared). An unchanged document comes back as `previous` itself.
 * - Every object in the result has a null prototype: names such as `"__proto__"` or
 *   `"constructor"` are ordinary keys, never inherited members. (`previous` must be such a tree,
 *   which it is when it came from here.)
 */

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function shareArray(previous: Json, next: readonly Json[]): Json {
  const before = Array.isArray(previous) ? (previous as readonly Json[]) : undefined;
  // Allocated at the first difference only: an unchanged subtree costs no garbage.
  let out: Json[] | undefined =
    before !== undefined && before.length === next.length ? undefined : [];
  for (let i = 0; i < next.length; i++) {
    const was = before?.[i];
    const value = shareStructure(was, next[i]);
    if (out === undefined && value !== was) out = before?.slice(0, i) ?? [];
    out?.push(value);
  }
  return out ?? before;
}

function shareRecord(previous: Json, next: Record<string, Json>): Json {
  const before = isRecord(previous) ? previous : undefined;
  const beforeKeys = before === undefined ? [] : Object.keys(before);
  const keys = Object.keys(next);
  // Allocated at the first difference only, then filled with what was equal so far.
  let out: Record<string, Json> | undefined =
    before !== undefined && beforeKeys.length === keys.length ? undefined : nullRecord();
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const owned = before !== undefined && Object.prototype.hasOwnProperty.call(before, key);
    const was = owned ? before[key] : undefined;
    const value = shareStructure(was, next[key]);
    if (out === undefined && (!owned || value !== was || beforeKeys[i] !== key)) {
      out = nullRecord();
      for (let j = 0; j < i; j++) out[keys[j]] = before?.[keys[j]];
    }
    // A null-prototype object has no __proto__ setter: every key lands as data.
    if (out !== undefined) out[key] = value;
  }
  return out ?? before;
}

function nullRecord(): Record<string, Json> {
  return Object.create(null) as Record<string, Json>;
}

/** `next` as a null-prototype tree that reuses `previous`'s unchanged subtrees (see above). */
export function shareStructure(previous: Json, next: Json): Json {
  if (next === null || typeof next !== 'object') return next;
  if (Array.isArray(next)) return shareArray(previous, next);
  return shareRecord(previous, next as Record<string, Json>);
}
