/**
 * SessionPort over the daemon socket: the serve process's view of a session the daemon runs.
 *
 * Guarantees:
 * - Same semantics as LocalSessionPort (the daemon runs one behind every method).
 * - Cancellation crosses the socket: when the MCP client cancels, the call settles at once with
 *   the signal's reason and `serve.cancel` aborts the daemon-side call; a late answer is dropped.
 * - A call to an unavailable server fails with the `why` message and its action as the error
 *   message (what the bridge puts in its `isError` result).
 * - Notifications of other sessions on the same connection are ignored; `close()` stops
 *   delivering and closes the connection (the daemon then releases this connection's hold).
 */
import type { CallToolResult, GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { RpcClient } from '../rpc-client.js';
import {
  LIST_CHANGED,
  PENDING_APPROVAL,
  type ListChangedParams,
  type PendingApprovalParams,
} from './protocol.js';
import type {
  ApprovalRequest,
  DecideOutcome,
  Decision,
  ServerTools,
  SessionPort,
  WhyText,
} from '../../gateway/session-port.js';

export class RpcSessionPort implements SessionPort {
  readonly #unsubscribe: (() => void)[] = [];
  #nextCall = 1;

  private constructor(
    readonly client: RpcClient,
    readonly sessionId: string,
  ) {}

  /** Subscribes the connection to the session's notifications and returns the port. */
  static async attach(client: RpcClient, sessionId: string): Promise<RpcSessionPort> {
    await client.call('serve.subscribe', { sessionId });
    return new RpcSessionPort(client, sessionId);
  }

  async list(): Promise<ServerTools[]> {
    const answer = await this.client.call<{ servers: ServerTools[] }>('serve.list', {
      sessionId: this.sessionId,
    });
    return answer.servers;
  }

  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: { signal?: AbortSignal; timeout?: number },
  ): Promise<CallToolResult> {
    return this.#cancellable<CallToolResult>(
      'serve.callTool',
      {
        server,
        tool,
        ...(args === undefined ? {} : { arguments: args }),
        ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      },
      options.signal,
    );
  }

  getPrompt(
    server: string,
    prompt: string,
    args: Record<string, string> | undefined,
    options: { signal?: AbortSignal },
  ): Promise<GetPromptResult> {
    return this.#cancellable<GetPromptResult>(
      'serve.getPrompt',
      { server, prompt, ...(args === undefined ? {} : { arguments: args }) },
      options.signal,
    );
  }

  why(server: string): Promise<WhyText> {
    return this.client.call<WhyText>('serve.why', { sessionId: this.sessionId, server });
  }

  decide(server: string, decision: Decision, hash: string): Promise<DecideOutcome> {
    return this.client.call<DecideOutcome>('serve.decide', {
      sessionId: this.sessionId,
      server,
      decision,
      hash,
    });
  }

  async pendingApprovals(): Promise<ApprovalRequest[]> {
    const answer = await this.client.call<{ requests: ApprovalRequest[] }>(
      'serve.pendingApprovals',
      { sessionId: this.sessionId },
    );
    return answer.requests;
  }

  async settled(timeoutMs: number): Promise<void> {
    await this.client.call('serve.settled', { sessionId: this.sessionId, timeoutMs });
  }

  onListChanged(listener: () => void): void {
    this.#unsubscribe.push(
      this.client.on(LIST_CHANGED, (params) => {
        if ((params as ListChangedParams | undefined)?.sessionId === this.sessionId) listener();
      }),
    );
  }

  onPendingApproval(listener: (request: ApprovalRequest) => void): void {
    this.#unsubscribe.push(
      this.client.on(PENDING_APPROVAL, (params) => {
        const p = params as PendingApprovalParams | undefined;
        if (p?.sessionId === this.sessionId && p.request) listener(p.request);
      }),
    );
  }

  async close(): Promise<void> {
    for (const off of this.#unsubscribe.splice(0)) off();
    await this.client.close();
  }

  /** A call the signal can cancel: settles at once on abort and tells the daemon to stop. */
  #cancellable<T>(method: string, params: object, signal: AbortSignal | undefined): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const callId = String(this.#nextCall++);
    const pending = this.client.call<T>(method, { sessionId: this.sessionId, callId, ...params });
    if (!signal) return pending;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        // The daemon answers the aborted call with an error nobody waits for any more.
        pending.catch(() => undefined);
        this.client.call('serve.cancel', { callId }).catch(() => undefined);
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('the call was cancelled');
}
