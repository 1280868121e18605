/**
 * The `serve.*` part of the daemon protocol (cli/PROTOCOL.md), shared by the daemon's methods
 * (cli/methods/serve.ts) and the serve process's port (rpc-port.ts), so both sides name the
 * same methods and payloads.
 */
import type { ApprovalRequest } from '../../gateway/session-port.js';

/** Daemon → client: the session's tools or prompts changed (once per settled burst). */
export const LIST_CHANGED = 'serve.listChanged';
/** Daemon → client: a gated server of the session became promptable. */
export const PENDING_APPROVAL = 'serve.pendingApproval';

export interface ListChangedParams {
  readonly sessionId: string;
}

export interface PendingApprovalParams {
  readonly sessionId: string;
  readonly request: ApprovalRequest;
}

/** `data` of the error a call to an unavailable server fails with (code -32004). */
export interface UnavailableData {
  readonly name: string;
  readonly reason: string;
  readonly action: string;
}
