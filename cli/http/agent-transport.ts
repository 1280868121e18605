/**
 * The transport an HTTP agent's gateway is connected to: the SDK's web-standard Streamable HTTP
 * server transport, with the one budget of the socket's agent transport (cli/gateway-socket.ts)
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
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { LIMIT_EXCEEDED_CODE } from '../../api/limits.js';

export class HttpAgentTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #inner: WebStandardStreamableHTTPServerTransport;
  readonly #maxInFlight: number;
  readonly #inFlight = new Set<RequestId>();

  constructor(inner: WebStandardStreamableHTTPServerTransport, maxRequestsInFlight: number) {
    this.#inner = inner;
    this.#maxInFlight = maxRequestsInFlight;
    inner.onmessage = (message, extra) => this.#receive(message, extra);
    inner.onclose = () => {
      this.#inFlight.clear();
      this.onclose?.();
    };
    // The transport reports every refused HTTP request here; the endpoint answers those itself.
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!('method' in message) && 'id' in message && message.id !== undefined)
      this.#inFlight.delete(message.id);
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if ('method' in message) {
      if ('id' in message) {
        const id = message.id;
        if (this.#inFlight.size >= this.#maxInFlight && !this.#inFlight.has(id)) {
          void this.#inner
            .send({
              jsonrpc: '2.0',
              id,
              error: {
                code: LIMIT_EXCEEDED_CODE,
                message: `${this.#maxInFlight} requests of this agent are waiting for their answers, the daemon's limit; wait for some before sending more`,
              },
            })
            .catch(() => undefined);
          return;
        }
        this.#inFlight.add(id);
      } else if (message.method === 'notifications/cancelled') {
        const params: unknown = message.params;
        const cancelled =
          typeof params === 'object' && params !== null && 'requestId' in params
            ? params.requestId
            : undefined;
        if (typeof cancelled === 'string' || typeof cancelled === 'number')
          this.#inFlight.delete(cancelled);
      }
    }
    this.onmessage?.(message, extra);
  }
}
