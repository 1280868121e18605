/**
 * The transport an HTTP agent's gateway is connected to: the SDK's web-standard Streamable HTTP
 * server transport, with the one budget of the socket's agent transport (cli/rpc/gateway-socket.ts)
 * that HTTP does not already bound.
 *
 * Guarantees:
 * - At most `maxRequestsInFlight` of the agent's requests wait for an answer at once; one more
 *   is answered at once with -32005 and never reaches the gateway. (A client that drops each
 *   request's stream and sends another would otherwise pile up work without limit: the streams
 *   are bounded, the requests behind them were not.) A request the agent cancelled frees its
 *   place.
 * - Everything else passes unchanged both ways, with its `extra` (inbound) and options
 *   (outbound, so a message related to a request goes on that request's stream).
 * - A request taken on the endpoint's fast path (`receiveFast`, fast-path.ts) passes the same
 *   budget and reaches the gateway the same way; its answer, and anything sent related to it
 *   before, go to its `FastReply` instead of the SDK transport (which never saw it). Its
 *   cancellation, and the transport closing, end the reply without an answer.
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { LIMIT_EXCEEDED_CODE } from '../../api/limits.js';
import type { FastReply } from './fast-path.js';

export class HttpAgentTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #inner: WebStandardStreamableHTTPServerTransport;
  readonly #maxInFlight: number;
  readonly #inFlight = new Set<RequestId>();
  /** Requests of the fast path waiting for their answer. */
  readonly #fast = new Map<RequestId, FastReply>();

  constructor(inner: WebStandardStreamableHTTPServerTransport, maxRequestsInFlight: number) {
    this.#inner = inner;
    this.#maxInFlight = maxRequestsInFlight;
    inner.onmessage = (message, extra) => this.#receive(message, extra);
    inner.onclose = () => {
      this.#inFlight.clear();
      const replies = [...this.#fast.values()];
      this.#fast.clear();
      for (const reply of replies) reply.end();
      this.onclose?.();
    };
    // The transport reports every refused HTTP request here; the endpoint answers those itself.
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** The agent's requests waiting for their answer now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answered =
      !('method' in message) && 'id' in message && message.id !== undefined
        ? message.id
        : undefined;
    if (answered !== undefined) this.#inFlight.delete(answered);
    if (this.#fast.size > 0) {
      const id = answered ?? options?.relatedRequestId;
      const reply = id === undefined ? undefined : this.#fast.get(id);
      if (id !== undefined && reply) {
        if (answered !== undefined) {
          this.#fast.delete(id);
          reply.answer(message);
        } else reply.related(message);
        return Promise.resolve();
      }
    }
    return this.#inner.send(message, options);
  }

  /**
   * A request of the endpoint's fast path: to the gateway as `receive` would pass it, its
   * answer to `reply`.
   */
  receiveFast(message: JSONRPCRequest, extra: MessageExtraInfo, reply: FastReply): void {
    const refusal = this.#admit(message.id);
    if (refusal) {
      reply.answer(refusal);
      return;
    }
    // A second request with the id of one still waiting: the first gets no answer.
    this.#fast.get(message.id)?.end();
    this.#fast.set(message.id, reply);
    this.onmessage?.(message, extra);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if ('method' in message) {
      if ('id' in message) {
        const refusal = this.#admit(message.id);
        if (refusal) {
          void this.#inner.send(refusal).catch(() => undefined);
          return;
        }
      } else if (message.method === 'notifications/cancelled') {
        const params: unknown = message.params;
        const cancelled =
          typeof params === 'object' && params !== null && 'requestId' in params
            ? params.requestId
            : undefined;
        if (typeof cancelled === 'string' || typeof cancelled === 'number') {
          this.#inFlight.delete(cancelled);
          const reply = this.#fast.get(cancelled);
          this.#fast.delete(cancelled);
          reply?.end();
        }
      }
    }
    this.onmessage?.(message, extra);
  }

  /** Counts request `id` in flight, or the answer refusing it (over the budget). */
  #admit(id: RequestId): JSONRPCMessage | undefined {
    if (this.#inFlight.size >= this.#maxInFlight && !this.#inFlight.has(id))
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: LIMIT_EXCEEDED_CODE,
          message: `${this.#maxInFlight} requests of this agent are waiting for their answers, the daemon's limit; wait for some before sending more`,
        },
      };
    this.#inFlight.add(id);
    return undefined;
  }
}
