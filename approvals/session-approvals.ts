/**
 * Approve-for-session (DESIGN §4 rule 10): the user admits a gated server for this session
 * only. The controller holds one instance per session.
 *
 * Guarantees:
 * - Nothing is persisted: this is memory only, gone with the session (or `clear()`).
 * - Bound to the approval hash like a stored approval: editing the server's config makes it
 *   pending again; editing it back is covered again.
 * - Names are Map keys, so `__proto__` and friends are ordinary names.
 * - `revoke(name)` drops every session approval of that name; the controller calls it when
 *   the user rejects the server, so a reject is never outvoted by an earlier session approval.
 * - Language servers are kept under their record name (`languageserver/NAME`, kinds.ts) and
 *   checked with `isApprovedKey`, so an MCP server's session approval never admits one.
 */
import type { ApprovalHash, McpServerConfig } from '../api/index.js';
import { approvalHashOf } from '../api/index.js';
import type { ApprovalKey } from './kinds.js';

export class SessionApprovals {
  /** name → approval hashes approved for this session. */
  private readonly approved = new Map<string, Set<string>>();

  /** Approves, for this session, the config whose approval hash is `hash` (the one shown). */
  approve(name: string, hash: ApprovalHash): void {
    const hashes = this.approved.get(name) ?? new Set<string>();
    hashes.add(hash);
    this.approved.set(name, hashes);
  }

  isApproved(name: string, config: McpServerConfig): boolean {
    return this.approved.get(name)?.has(approvalHashOf(config)) ?? false;
  }

  /** Approved for this session under `key.record` for the config hashed `key.hash`. */
  isApprovedKey(key: ApprovalKey): boolean {
    return this.approved.get(key.record)?.has(key.hash) ?? false;
  }

  /** Forgets every session approval of `name`; true if there was one. */
  revoke(name: string): boolean {
    return this.approved.delete(name);
  }

  clear(): void {
    this.approved.clear();
  }

  /** Names with at least one session approval, sorted. */
  names(): string[] {
    return [...this.approved.keys()].sort();
  }
}
