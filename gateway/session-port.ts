/**
 * What the gateway needs from a session, whether it runs in this process (`--no-daemon`)
 * or in the daemon behind the socket. Both implementations keep the same semantics.
 */
import type { Prompt, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Disclosure, HeldDefinition, Scope } from '../api/index.js';
import type {
  LspAnswer,
  LspArgs,
  LspQuestion,
  LspServerView,
} from '../controller/lsp-questions.js';
import type { ServerKind } from '../controller/session.js';
import type {
  SessionAttachment,
  SessionAgent,
  SessionRequestOptions,
} from '../controller/session-attachment.js';
import type { McpMessage } from '../pool/types.js';

export type { LspServerView } from '../controller/lsp-questions.js';
export type { ServerKind } from '../controller/session.js';

/** A Ready server of the session as the agent may see it. */
export interface ServerTools {
  readonly server: string;
  readonly scope: Scope;
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  /** What the server declared (absent: nothing beyond tools and prompts is forwarded). */
  readonly capabilities?: ServerCapabilities;
  readonly instructions?: string;
}

/** What a user is asked about when a gated server becomes promptable. */
export interface ApprovalRequest {
  /**
   * An MCP server (`.mcp.json`) or a language server (`.lsp.json`): the answer decides about
   * this kind only, never about the server of the other kind with the same name.
   */
  readonly kind: ServerKind;
  readonly name: string;
  readonly scope: string;
  readonly source: string;
  /**
   * What the config runs or contacts and sends where, as its file writes it: the description
   * `mcpctl approve` and `describe` show too (api/disclosure.ts). No variable's value; of
   * literal values only the repository's env text.
   */
  readonly disclosure: Disclosure;
  /** Approval hash of the config shown: the answer decides about this config only. */
  readonly hash: string;
}

/** What a user is asked about when an MCP server's pins hold a changed or new definition. */
export interface HeldToolsRequest {
  readonly name: string;
  /** The definitions held and not rejected, as the user is shown them (their digests). */
  readonly held: readonly HeldDefinition[];
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
  /**
   * Any MCP request to the connection serving `server` now; the server's result untouched.
   * Unavailable → an error whose message is the `why` message and its fix.
   */
  request(
    server: string,
    message: McpMessage,
    options: SessionRequestOptions,
  ): Promise<Record<string, unknown>>;
  /** Attaches one agent connection to the session's Ready servers (session-attachment.ts). */
  attach(agent: SessionAgent): SessionAttachment;
  /**
   * Records a Warning event about a server (shown by `get events`, `describe`), once per
   * session: another agent connection finding the same fact adds nothing.
   */
  warn(server: string, reason: 'DuplicateResource', message: string): void;
  why(server: string): Promise<WhyText>;
  /** The configured servers that offer nothing now, each with its `why` answer. */
  unavailable(): Promise<(WhyText & { readonly server: string })[]>;
  /**
   * The session's config files that do not parse or validate, one sentence each (where, the
   * fix, what of it is in force): why servers may be missing. Absent: a port with no files.
   */
  configWarnings?(): Promise<string[]>;
  /**
   * Decides about the config of `server` of `kind` whose approval hash is `hash` (the one the
   * user was shown). A config that changed since is not decided about: `{ decided: false }`.
   */
  decide(
    server: string,
    decision: Decision,
    hash: string,
    kind: ServerKind,
  ): Promise<DecideOutcome>;
  /**
   * The gated servers of both kinds that are promptable now. A client that connects after the one
   * `pendingApproval` event of a config (the session prompts once per config) is asked about
   * these when it has initialized.
   */
  pendingApprovals(): Promise<ApprovalRequest[]>;
  /**
   * Resolves when the session has no reconcile queued or running, or after `timeoutMs` at
   * most; at once while the session's current busy spell was already waited for in full (by
   * this agent or another): one wait per spell, however many agents and requests ask.
   */
  settled(timeoutMs: number): Promise<void>;
  /**
   * The session's configured language servers, each saying whether it is Ready and its `why`
   * while not (what the `lsp_*` tools are listed and found with).
   */
  languageServers(): Promise<LspServerView[]>;
  /**
   * A language-server question (controller/lsp-questions.ts): asked of the Ready server of its
   * file's extension, or of every Ready one for a question about the workspace; its plain
   * answer. A refusal (no server for the file, its server not Ready, the server's error or
   * timeout, a bad file) rejects with the message the agent reads, an LspError; an abort of
   * `signal` cancels the server's request.
   */
  ask<Q extends LspQuestion>(
    question: Q,
    args: LspArgs<Q>,
    signal: AbortSignal,
  ): Promise<LspAnswer<Q>>;
  /**
   * Called once per settled burst of reconciles that changed the registry, or the set of
   * Ready language servers (the `lsp_*` tools are listed only while one is Ready).
   */
  onListChanged(listener: () => void): void;
  onPendingApproval(listener: (request: ApprovalRequest) => void): void;
  /** The MCP servers whose pins hold definitions the user has not decided about. */
  heldTools(): Promise<HeldToolsRequest[]>;
  /** A server's pins hold something new to ask about (after the pass that held it). */
  onToolsHeld(listener: (request: HeldToolsRequest) => void): void;
  /**
   * Accepts or rejects the held definitions of `server` whose digests are `digests` (what the
   * user was shown); what changed again since is not decided (`decided: false`).
   */
  decideTools(
    server: string,
    decision: 'accept' | 'reject',
    digests: readonly string[],
  ): Promise<DecideOutcome>;
  /** The servers waiting for an OAuth login now (`why` says Unauthorized). */
  loginsRequired(): Promise<string[]>;
  /** A server started waiting for an OAuth login (once per stretch of waiting). */
  onLoginRequired(listener: (server: string) => void): void;
  close(): Promise<void>;
}
