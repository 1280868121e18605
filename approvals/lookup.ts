/**
 * The approval state of a server as the gating and the admission code need it.
 *
 * Guarantees:
 * - Servers from non-gated scopes (user, system, cli, session) are approved without consulting
 *   any store (DESIGN §4 rule 7): their config is the user's own.
 * - A gated server is approved if the store says so for its current config, or if it was
 *   approved for this session for its current config (rule 10); otherwise the store's state
 *   (`pending` or `rejected`) stands, so rejected stays down and only pending is promptable.
 * - The verdict also carries the Admitted reason, so `Approved` and `ApprovedForSession` are
 *   told apart in status without a second lookup.
 * - Stores and session approvals are taken as narrow interfaces: tests and the controller may
 *   pass their own.
 * - Both kinds, apart (kinds.ts): a language server is read under its own record and hash; a
 *   reader that cannot read by key (`stateOf`, `isApprovedKey`) leaves it pending, the safe side.
 */
import type {
  AdmittedReason,
  ApprovalLookup,
  ApprovalState,
  DesiredLanguageServer,
  DesiredServer,
  McpServerConfig,
} from '../api/index.js';
import { isGatedScope } from '../api/index.js';
import { approvalKeyOf, isLanguageServer, type ApprovalKey } from './kinds.js';

/** What the lookup needs from a store (ApprovalStore has it). */
export interface ApprovalReader {
  getState(root: string, name: string, config: McpServerConfig): ApprovalState;
  /** Either kind, by record and hash (kinds.ts); absent: language servers stay pending. */
  stateOf?(root: string, key: ApprovalKey): ApprovalState;
  /** Where a carried decision was made (another work tree of the repository); absent: none. */
  carriedFrom?(root: string, key: ApprovalKey): string | undefined;
}

/** What the lookup needs from session approvals (SessionApprovals has it). */
export interface SessionApprovalReader {
  isApproved(name: string, config: McpServerConfig): boolean;
  /** Either kind, by record and hash (kinds.ts); absent: none approved by key. */
  isApprovedKey?(key: ApprovalKey): boolean;
}

/** The stored state of a server of either kind. */
export function storedStateOf(
  store: ApprovalReader,
  root: string,
  server: DesiredServer | DesiredLanguageServer,
): ApprovalState {
  if (!isLanguageServer(server)) return store.getState(root, server.name, server.config);
  return store.stateOf?.(root, approvalKeyOf(server)) ?? 'pending';
}

/** Whether a server of either kind is approved for this session, for its current config. */
export function approvedForSessionOf(
  session: SessionApprovalReader | undefined,
  server: DesiredServer | DesiredLanguageServer,
): boolean {
  if (!session) return false;
  if (!isLanguageServer(server)) return session.isApproved(server.name, server.config);
  return session.isApprovedKey?.(approvalKeyOf(server)) ?? false;
}

export type ApprovalReason = Extract<
  AdmittedReason,
  'NotGated' | 'Approved' | 'ApprovedForSession' | 'PendingApproval' | 'Rejected'
>;

export interface ApprovalVerdict {
  readonly state: ApprovalState;
  readonly reason: ApprovalReason;
}

export function approvalVerdictOf(
  store: ApprovalReader,
  root: string,
  session: SessionApprovalReader | undefined,
  server: DesiredServer | DesiredLanguageServer,
): ApprovalVerdict {
  if (!isGatedScope(server.scope)) return { state: 'approved', reason: 'NotGated' };
  const stored = storedStateOf(store, root, server);
  if (stored === 'approved') return { state: 'approved', reason: 'Approved' };
  if (approvedForSessionOf(session, server)) {
    return { state: 'approved', reason: 'ApprovedForSession' };
  }
  return stored === 'rejected'
    ? { state: 'rejected', reason: 'Rejected' }
    : { state: 'pending', reason: 'PendingApproval' };
}

/** api's ApprovalLookup for one session: project root `root`, its session approvals. */
export function approvalLookup(
  store: ApprovalReader,
  root: string,
  session?: SessionApprovalReader,
): ApprovalLookup {
  return (server) => approvalVerdictOf(store, root, session, server).state;
}

/** The same for the session's language servers (the store's `lspApprovals` option). */
export function lspApprovalLookup(
  store: ApprovalReader,
  root: string,
  session?: SessionApprovalReader,
): (server: DesiredLanguageServer) => ApprovalState {
  return (server) => approvalVerdictOf(store, root, session, server).state;
}
