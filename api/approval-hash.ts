/**
 * The approval hash as a type: what every approve/reject must name (DESIGN §4 rules 6–8).
 *
 * Guarantees:
 * - An `ApprovalHash` is 64 lowercase hex characters, made only by hashing a config
 *   (`approvalHashOver`, through a kind's rule: identity.ts, lsp-identity.ts) or by checking a
 *   text (`asApprovalHash`). A plain string, or a config, is not one, so no code can decide
 *   about "whatever the config is now" by accident: a decision always names the exact config
 *   the user was shown.
 */
import { canonicalText, sha256Hex } from './digest.js';

declare const approvalHashBrand: unique symbol;

export type ApprovalHash = string & { readonly [approvalHashBrand]: true };

const HASH = /^[0-9a-f]{64}$/;

/** Full sha256 hex over the canonical text of `value`: what a kind's approval hash is. */
export function approvalHashOver(value: unknown): ApprovalHash {
  return sha256Hex(canonicalText(value)) as ApprovalHash;
}

/** `text` as an ApprovalHash when it is one (64 lowercase hex), else undefined. */
export function asApprovalHash(text: string): ApprovalHash | undefined {
  return HASH.test(text) ? (text as ApprovalHash) : undefined;
}
