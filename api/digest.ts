/**
 * The digests identities are made of (identity.ts, lsp-identity.ts): sha256 hex over canonical
 * JSON — object keys sorted at every depth, arrays in order — so equal configs give equal
 * digests whatever their key order.
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
