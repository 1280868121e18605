/**
 * The digests identities are made of, for every kind (kinds.ts): sha256 hex over canonical
 * JSON — object keys sorted at every depth, arrays in order — so equal configs give equal
 * digests whatever their key order.
 *
 * Guarantees:
 * - A connectionId is `${name}::${16 hex}` over a kind's connection fields (`fingerprintIdOf`),
 *   the same construction for every kind; what differs is only which fields a kind counts
 *   (identity.ts, lsp-identity.ts).
 * - `changedFieldsOf` names the fields whose canonical texts differ, in the first one's order.
 */
import { createHash } from 'node:crypto';
import stableStringify from 'json-stable-stringify';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Canonical JSON text of `value`; throws for a value JSON cannot hold (a top-level undefined). */
export function canonicalText(value: unknown): string {
  const text = stableStringify(value);
  if (text === undefined) throw new Error('value cannot be serialised canonically');
  return text;
}

/** `${name}::${first 16 hex of sha256 over the canonical fields}`: a connectionId. */
export function fingerprintIdOf(name: string, fields: Readonly<Record<string, unknown>>): string {
  return `${name}::${sha256Hex(canonicalText(fields)).slice(0, 16)}`;
}

/** The names of the fields of `a` whose value differs in `b` (for `diff` and events). */
export function changedFieldsOf(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): string[] {
  return Object.keys(a).filter((k) => canonicalText(a[k]) !== canonicalText(b[k]));
}
