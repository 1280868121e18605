/**
 * Admission: the one place a server is judged fit to run, and the only producer of
 * AdmissionTicket (DESIGN §5 "One admission path").
 *
 * Order of checks (first match wins): untrusted folder → disabled → excluded → not in the
 * effective allowlist → gated: approved for this session → rejected → not approved (pending).
 * A session approval is checked before a stored rejection because it is the newer, explicit
 * decision of the same user for this exact config.
 */
import {
  connectionIdOf,
  isExcluded,
  isGatedScope,
  isInAllowlist,
  type AdmittedReason,
  type ApprovalState,
  type DesiredServer,
  type Gating,
} from '../api/index.js';
import type { AdmissionTicket } from '../pool/ticket.js';

/** What admission needs to know about approvals; the session adapts its stores to this. */
export interface ApprovalView {
  /** The persisted, hash-bound state (DESIGN §4 rule 7). */
  state(server: DesiredServer): ApprovalState;
  /** Approved for this session only, for this exact config (rule 10). */
  approvedForSession(server: DesiredServer): boolean;
}

export interface AdmissionContext {
  readonly trusted: boolean;
  readonly gating: Gating;
  readonly approvals: ApprovalView;
  readonly sessionId: string;
  /** The session's workspace: a stdio server runs there, or in its `cwd` resolved against it. */
  readonly workspace: string;
}

export type AdmittedDecision = {
  readonly admitted: true;
  readonly reason: Extract<AdmittedReason, 'NotGated' | 'Approved' | 'ApprovedForSession'>;
};

export type RefusedReason = Exclude<AdmittedReason, 'NotGated' | 'Approved' | 'ApprovedForSession'>;

export type RefusedDecision = {
  readonly admitted: false;
  readonly reason: RefusedReason;
  readonly message: string;
};

export type AdmissionDecision = AdmittedDecision | RefusedDecision;

/** The decision alone, without a ticket: what `diff` and `why` use. */
export function decideAdmission(server: DesiredServer, ctx: AdmissionContext): AdmissionDecision {
  const { name } = server;
  const refuse = (reason: RefusedReason, message: string): RefusedDecision => ({
    admitted: false,
    reason,
    message,
  });
  if (!ctx.trusted)
    return refuse('UntrustedFolder', `the workspace ${ctx.workspace} is not trusted`);
  if (server.config.disabled === true)
    return refuse('Disabled', `server ${name} has "disabled": true in ${server.source}`);
  if (isExcluded(name, ctx.gating)) return refuse('Excluded', `server ${name} is in mcp.excluded`);
  if (!isInAllowlist(name, ctx.gating))
    return refuse('NotAllowed', `server ${name} is not in the effective allowlist`);
  if (!isGatedScope(server.scope)) return { admitted: true, reason: 'NotGated' };
  if (ctx.approvals.approvedForSession(server))
    return { admitted: true, reason: 'ApprovedForSession' };
  const state = ctx.approvals.state(server);
  if (state === 'approved') return { admitted: true, reason: 'Approved' };
  if (state === 'rejected')
    return refuse('Rejected', `server ${name} from ${server.source} was rejected for this config`);
  return refuse(
    'PendingApproval',
    `server ${name} from ${server.source} needs approval before it may start`,
  );
}

export type Admission = (AdmittedDecision & { readonly ticket: AdmissionTicket }) | RefusedDecision;

/** Decides, and mints a ticket only when admitted. */
export function admit(server: DesiredServer, ctx: AdmissionContext): Admission {
  const decision = decideAdmission(server, ctx);
  if (!decision.admitted) return decision;
  const ticket = {
    name: server.name,
    connectionId: connectionIdOf(server.name, server.config, ctx.workspace),
    config: server.config,
    sessionId: ctx.sessionId,
    cwd: ctx.workspace,
  } as AdmissionTicket; // The one sanctioned mint: every check above has passed.
  return { ...decision, ticket };
}
