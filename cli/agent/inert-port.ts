/**
 * The port of a serve that finds itself started by mcpctl: the agent's own `mcpctl serve`
 * entry sits in a file mcpctl watches (e.g. `~/.qwen/settings.json` for Qwen Code), so the
 * controller starts it as one of the servers. Proxying mcpctl into itself would repeat every
 * tool under `mcpctl__…` and open a session per level, so that serve offers nothing instead.
 *
 * Guarantees: no tools, no prompts, no session, no daemon; every call and `why` answers with
 * the reason, so `mcpctl describe server NAME` and the agent both see what happened.
 */
import type { SessionAttachment } from '../../controller/session-attachment.js';
import type {
  ApprovalRequest,
  DecideOutcome,
  HeldToolsRequest,
  LspServerView,
  ServerTools,
  SessionPort,
  WhyText,
} from '../../gateway/session-port.js';

/** Set in the environment of every server an mcpctl controller starts (see cli/serve/run.ts). */
export const INSIDE_MCPCTL_ENV = 'MCPCTL_SERVE_INSIDE';

export class InertSessionPort implements SessionPort {
  constructor(readonly reason: string) {}

  list(): Promise<ServerTools[]> {
    return Promise.resolve([]);
  }

  request(): Promise<Record<string, unknown>> {
    return Promise.reject(new Error(this.reason));
  }

  attach(): SessionAttachment {
    return {
      rootsChanged: () => undefined,
      subscribe: () => Promise.reject(new Error(this.reason)),
      unsubscribe: () => Promise.resolve(),
      setLogLevel: () => Promise.resolve(),
      detach: () => undefined,
    };
  }

  warn(): void {
    // Nothing runs here to warn about.
  }

  languageServers(): Promise<LspServerView[]> {
    return Promise.resolve([]);
  }

  async ask(): Promise<never> {
    // A refusal the agent reads, as the port's contract has it (an LspError, not a bug to
    // log). Imported when asked: serve with a daemon loads no controller module at start
    // (startup.test.ts), and an lsp_* call reaches this port only by name, never listed.
    const { LspError } = await import('../../controller/lsp-questions.js');
    throw new LspError('server', this.reason);
  }

  unavailable(): Promise<(WhyText & { readonly server: string })[]> {
    return Promise.resolve([]);
  }

  why(server: string): Promise<WhyText> {
    return Promise.resolve({
      reason: 'Unknown',
      message: `no server named ${server} here: ${this.reason}`,
      action: 'use the mcpctl entry your agent started itself',
    });
  }

  decide(): Promise<DecideOutcome> {
    return Promise.reject(new Error(this.reason));
  }

  pendingApprovals(): Promise<ApprovalRequest[]> {
    return Promise.resolve([]);
  }

  loginsRequired(): Promise<string[]> {
    return Promise.resolve([]);
  }

  onLoginRequired(): void {
    // No session: nothing ever waits for a login here.
  }

  settled(): Promise<void> {
    return Promise.resolve();
  }

  onListChanged(): void {
    // Nothing ever changes.
  }

  onPendingApproval(): void {
    // Nothing is ever pending.
  }

  heldTools(): Promise<HeldToolsRequest[]> {
    return Promise.resolve([]);
  }

  onToolsHeld(): void {
    // No server: nothing is ever held.
  }

  decideTools(): Promise<DecideOutcome> {
    return Promise.reject(new Error(this.reason));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
