/**
 * How one session judges admission (reconcilers/admission.ts): the one place its
 * AdmissionContext is built, for the reconcile pass, `why`, `diff` and an OAuth login's target.
 *
 * Guarantees:
 * - Every judgement of a session names the same session id, workspace, environment and approval
 *   view; only trust and gating vary, read from the desired state given (the committed one, or
 *   the files on disk for `diff`).
 * - Approvals are read at the moment of the judgement (the persisted hash-bound state, and
 *   approve-for-session for this exact config), never remembered here.
 */
import type { DesiredLanguageServer, Gating, SessionEnvironment } from '../api/index.js';
import {
  approvalKeyOf,
  approvedForSessionOf,
  storedStateOf,
  type ApprovalReader,
  type SessionApprovalReader,
} from '../approvals/index.js';
import type { AdmissionContext, ApprovalView } from '../reconcilers/admission.js';

export interface SessionAdmissionDeps {
  readonly sessionId: string;
  readonly workspace: string;
  readonly env: SessionEnvironment;
  readonly approvals: ApprovalReader;
  readonly sessionApprovals: SessionApprovalReader;
}

/** What admission reads of a desired state besides the server itself. */
export interface AdmissionInputs {
  readonly trusted: boolean;
  readonly gating: Gating;
}

export class SessionAdmission {
  readonly #deps: SessionAdmissionDeps;
  readonly #approvals: ApprovalView;
  /** Language servers' approvals: their own records and hashes (approvals/kinds.ts). */
  readonly #lspApprovals: ApprovalView<DesiredLanguageServer>;

  constructor(deps: SessionAdmissionDeps) {
    this.#deps = deps;
    const root = deps.workspace;
    this.#approvals = {
      state: (s) => deps.approvals.getState(root, s.name, s.config),
      approvedForSession: (s) => deps.sessionApprovals.isApproved(s.name, s.config),
      carriedFrom: (s) => deps.approvals.carriedFrom?.(root, approvalKeyOf(s)),
    };
    this.#lspApprovals = {
      state: (s) => storedStateOf(deps.approvals, root, s),
      approvedForSession: (s) => approvedForSessionOf(deps.sessionApprovals, s),
      carriedFrom: (s) => deps.approvals.carriedFrom?.(root, approvalKeyOf(s)),
    };
  }

  /** The context to admit a language server of `desired` with (its LSP gating). */
  languageServerContext(desired: AdmissionInputs): AdmissionContext<DesiredLanguageServer> {
    return { ...this.context(desired), approvals: this.#lspApprovals };
  }

  /** The context to admit a server of `desired` with. */
  context(desired: AdmissionInputs): AdmissionContext {
    const d = this.#deps;
    return {
      trusted: desired.trusted,
      gating: desired.gating,
      approvals: this.#approvals,
      sessionId: d.sessionId,
      workspace: d.workspace,
      env: d.env,
    };
  }
}
