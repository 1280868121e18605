/**
 * The approval hash as a type: what every approve/reject must name (DESIGN §4 rules 6–8).
 *
 * Guarantees:
 * - An `ApprovalHash` is 64 lowercase hex characters, made only by hashing a config
 *   (`approvalHashFor`) or by checking a text (`asApprovalHash`). A plain string, or a config,
 *   is not one, so no code can decide about "whatever the config is now" by accident: a
 *   decision always names the exact config the user was shown.
 */
import { approvalHashOf } from './identity.js';
import type { LanguageServerConfig } from './lsp-config.js';
import { lspApprovalHashOf } from './lsp-identity.js';
import type { McpServerConfig } from './server-config.js';

declare const approvalHashBrand: unique symbol;

export type ApprovalHash = string & { readonly [approvalHashBrand]: true };

const HASH = /^[0-9a-f]{64}$/;

export function approvalHashFor(config: McpServerConfig): ApprovalHash {
  return approvalHashOf(config) as ApprovalHash;
}

/** `text` as an ApprovalHash when it is one (64 lowercase hex), else undefined. */
export function asApprovalHash(text: string): ApprovalHash | undefined {
  return HASH.test(text) ? (text as ApprovalHash) : undefined;
}

/** A language server entry's approval hash (lsp-identity.ts: the kind marker mixed in). */
export function lspApprovalHashFor(config: LanguageServerConfig): ApprovalHash {
  return lspApprovalHashOf(config) as ApprovalHash;
}
