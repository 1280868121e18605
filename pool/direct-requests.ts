/**
 * Requests the pool sends for agents straight on the transport, beside the SDK client that
 * shares it. The SDK's Protocol classifies every answer with zod schemas and validates the
 * result again; for a call that only passes an answer along, that is most of its cost. These
 * requests carry string ids of their own (`mcpctl-N`), which the SDK's numeric ids can never
 * equal, and their answers are taken off the transport before the Protocol sees them.
 *
 * Guarantees (as the SDK's `request` gives them): the answer's result object as the server sent
 * it, or an McpError with its code, message and data; an abort sends `notifications/cancelled`
 * and rejects with the abort reason (an McpError RequestTimeout when it is not one); the
 * timeout does the same with "Request timed out"; when the connection ends every request
 * pending rejects with ConnectionClosed; an answer for a request no longer pending is dropped.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpMessage } from './types.js';

const PREFIX = 'mcpctl-';

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

export class DirectRequests {
  readonly #pending = new Map<string, Pending>();
  #next = 0;
  #closed: Error | undefined;

  constructor(private readonly transport: Transport) {}

  request(
    message: McpMessage,
    options: { readonly signal?: AbortSignal; readonly timeout: number },
  ): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(asMcpError(signal.reason));
    const id = `${PREFIX}${(this.#next += 1)}`;
    return new Promise((resolve, reject) => {
      const cancel = (reason: unknown) => {
        if (!this.#pending.delete(id)) return;
        cleanup();
        this.transport
          .send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: String(reason) },
          })
          .catch(() => undefined);
        reject(asMcpError(reason));
      };
      const onAbort = () => cancel(signal?.reason);
      const timer = setTimeout(
        () =>
          cancel(
            new McpError(ErrorCode.RequestTimeout, 'Request timed out', {
              timeout: options.timeout,
            }),
          ),
        options.timeout,
      );
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      const request: JSONRPCMessage = {
        jsonrpc: '2.0',
        id,
        method: message.method,
        ...(message.params === undefined ? {} : { params: message.params }),
      };
      this.transport.send(request).catch((err: unknown) => {
        const pending = this.#pending.get(id);
        this.#pending.delete(id);
        pending?.reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  /**
   * Takes the answer to one of these requests off the transport: `answer` when its request was
   * waiting for it, `late` when it no longer was (cancelled, timed out: dropped), `other` for
   * any other message (left on the transport).
   */
  take(message: JSONRPCMessage): 'answer' | 'late' | 'other' {
    if ('method' in message || !('id' in message)) return 'other';
    const id = message.id;
    if (typeof id !== 'string' || !id.startsWith(PREFIX)) return 'other';
    const pending = this.#pending.get(id);
    if (!pending) return 'late'; // Nobody waits for it.
    this.#pending.delete(id);
    if ('result' in message) pending.resolve(message.result);
    else if ('error' in message)
      pending.reject(
        McpError.fromError(message.error.code, message.error.message, message.error.data),
      );
    return 'answer';
  }

  /** The connection ended: every pending request fails, and later ones at once. */
  close(): void {
    this.#closed ??= new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(this.#closed);
  }
}

function asMcpError(reason: unknown): McpError {
  return reason instanceof McpError
    ? reason
    : new McpError(ErrorCode.RequestTimeout, String(reason));
}
