/**
 * What the serve bridge needs from a session, whether it runs in this process (`--no-daemon`)
 * or in the daemon behind the socket. Both implementations keep the same semantics.
 */
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';

export interface ServerTools {
  readonly server: string;
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
}

/** What a user is asked about when a gated server becomes promptable. */
export interface ApprovalRequest {
  readonly name: string;
  readonly scope: string;
  readonly source: string;
  /** `command args…` or the URL. */
  readonly target: string;
  /** Names of env variables and headers (values never leave the daemon). */
  readonly envKeys: readonly string[];
  /** Approval hash of the config shown: the answer decides about this config only. */
  readonly hash: string;
}

export interface WhyText {
  readonly reason: string;
  readonly message: string;
  readonly action: string;
}

export type Decision = 'approve' | 'approve-session' | 'reject';

/** What became of a decision: made, or not because the config is no longer the one shown. */
export type DecideOutcome =
  { readonly decided: true } | { readonly decided: false; readonly reason: string };

export interface SessionPort {
  /** The Ready servers of the session with their (filtered) tools and prompts. */
  list(): Promise<ServerTools[]>;
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: { signal?: AbortSignal; timeout?: number },
  ): Promise<CallToolResult>;
  getPrompt(
    server: string,
    prompt: string,
    args: Record<string, string> | undefined,
    options: { signal?: AbortSignal },
  ): Promise<GetPromptResult>;
  why(server: string): Promise<WhyText>;
  /**
   * Decides about the config of `server` whose approval hash is `hash` (the one the user was
   * shown). A config that changed since is not decided about: `{ decided: false }`.
   */
  decide(server: string, decision: Decision, hash: string): Promise<DecideOutcome>;
  /**
   * The gated servers that are promptable now. A client that connects after the one
   * `pendingApproval` event of a config (the session prompts once per config) is asked about
   * these when it has initialized.
   */
  pendingApprovals(): Promise<ApprovalRequest[]>;
  /** Resolves when the session has no reconcile queued or running, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
  /** Called once per settled burst of reconciles that changed the registry. */
  onListChanged(listener: () => void): void;
  onPendingApproval(listener: (request: ApprovalRequest) => void): void;
  close(): Promise<void>;
}
