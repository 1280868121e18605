/**
 * MCP over a daemon socket connection that `gateway.open` took over: the SDK `Transport` the
 * daemon connects an agent's gateway to. One JSON-RPC message per line, both ways, exactly as
 * MCP's stdio transport frames them, so `mcpctl serve` only copies bytes.
 *
 * Guarantees:
 * - Framing and its limits stay the socket's (connection.ts): a line past the size limit, or
 *   one that stalls, ends the connection with an error line; nothing here buffers lines.
 * - What the gateway sends fits what the agent behind serve reads on its stdio
 *   (MAX_AGENT_STDIO_MESSAGE_BYTES, 9 MiB, or the socket's lower `maxLineBytes`;
 *   agent-message-size.ts): an answer past it is replaced by an error answer for its id
 *   (-32005, naming the limit), so the agent's request fails and its session goes on (its
 *   SDK would drop the whole connection on a longer line); any other message past it is not
 *   sent (`send` rejects) and is logged.
 * - Every line is checked as one JSON-RPC 2.0 message of MCP's shape (gateway/agent-message.ts)
 *   before anything else: one that is not is answered with its JSON-RPC error (-32700, -32600,
 *   -32602; id null unless the request's own id is valid) and dropped, and the connection goes
 *   on; a valid notification is never answered. A second `gateway.open` (the agent confused
 *   its protocols) is answered with an error and the connection is closed.
 * - At most `maxRequestsInFlight` of the agent's requests wait for an answer at once; one more
 *   is answered at once with -32005 and never reaches the gateway (the others go on).
 * - Backpressure: while the agent does not read what was sent, no more of its lines are read
 *   (no new work is taken on for it); `send` resolves once its line is written or buffered
 *   below the socket's high-water mark. Unread output past `maxPendingWriteBytes` (answers
 *   that were already on their way) ends the connection, logged.
 * - `onclose` fires exactly once, however the connection ends (either side, or `close()`);
 *   after it `send` rejects.
 * - `notifyStopping` writes the daemon's stop notice (DAEMON_STOPPING, for serve, not MCP)
 *   beside the gateway's messages, whole lines only, once. `close()` flushes what was sent, then ends the connection (cut
 *   off after a second if the peer does not hang up).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { checkAgentLine } from '../../gateway/agent-message.js';
import type { HandedOver } from './methods.js';
import { MAX_AGENT_STDIO_MESSAGE_BYTES } from '../../api/limits.js';
import { oversizeOf } from '../agent-message-size.js';
import { DAEMON_STOPPING, GATEWAY_OPEN, JSONRPC, RpcCodes, isObject } from './protocol.js';
import type { StopNotice } from './stop-notices.js';

export { GATEWAY_OPEN };

/** How long `close()` waits for the agent to hang up before cutting the connection. */
const CLOSE_GRACE_MS = 1000;

export interface GatewaySocketOptions {
  /** Where the transport reports a connection it ended (never the agent's channel). */
  readonly log: (message: string) => void;
}

export class GatewaySocketTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #connection: HandedOver;
  readonly #log: (message: string) => void;
  /** The largest message sent: what an agent reads on its stdio, at most the socket's limit. */
  readonly #maxSendBytes: number;
  /** Ids of the agent's requests not answered yet (nor cancelled by the agent). */
  readonly #inFlight = new Set<RequestId>();
  /** Sends waiting for the socket to drain (or close). */
  readonly #waiting: Array<() => void> = [];
  #started = false;
  #closed = false;
  #stopNoticeSent = false;
  #cutOff: NodeJS.Timeout | undefined;

  constructor(connection: HandedOver, options: GatewaySocketOptions) {
    this.#connection = connection;
    this.#log = options.log;
    this.#maxSendBytes = Math.min(connection.limits.maxLineBytes, MAX_AGENT_STDIO_MESSAGE_BYTES);
  }

  start(): Promise<void> {
    if (this.#started) throw new Error('GatewaySocketTransport already started');
    this.#started = true;
    const { socket } = this.#connection;
    if (socket.destroyed) {
      this.#finish();
      return Promise.resolve();
    }
    socket.once('close', () => this.#finish());
    socket.on('drain', () => {
      for (const resolve of this.#waiting.splice(0)) resolve();
      if (!this.#closed) socket.resume();
    });
    this.#connection.receive((line) => this.#onLine(line));
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the agent connection is closed'));
    // An answer (result or error) frees its request's place.
    const answered =
      !('method' in message) && 'id' in message && message.id !== undefined
        ? message.id
        : undefined;
    if (answered !== undefined) this.#inFlight.delete(answered);
    const text = JSON.stringify(message);
    const over = oversizeOf(message, text, this.#maxSendBytes);
    if (over && 'answer' in over) return this.#reply(over.answer, over.code, over.message);
    if (over) {
      this.#log(`not sent to the agent: ${over.dropped}`);
      return Promise.reject(new Error(`${over.dropped}: not sent`));
    }
    return this.#write(`${text}\n`);
  }

  /** Tells serve that the daemon stops, and when to come back (its last line to serve). */
  notifyStopping(notice: StopNotice): Promise<void> {
    if (this.#closed || this.#stopNoticeSent) return Promise.resolve();
    this.#stopNoticeSent = true;
    const params = { reconnect: notice.reconnect, reason: notice.reason };
    return this.#write(
      `${JSON.stringify({ jsonrpc: JSONRPC, method: DAEMON_STOPPING, params })}\n`,
    );
  }

  close(): Promise<void> {
    const { socket } = this.#connection;
    if (this.#closed || socket.destroyed) {
      this.#finish();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      socket.once('close', () => {
        this.#finish();
        resolve();
      });
      socket.end();
      socket.resume(); // The agent's hang-up must be seen.
      this.#cutOff = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
    });
  }

  #onLine(line: string): void {
    if (this.#closed) return;
    const checked = checkAgentLine(line);
    if (checked.kind === 'ignored') return;
    if (checked.kind === 'refused') {
      void this.#reply(checked.id, checked.code, checked.message);
      return;
    }
    const message = checked.message;
    if ('method' in message) {
      const id = 'id' in message ? message.id : undefined;
      if (message.method === GATEWAY_OPEN) {
        void this.#reply(
          id ?? null,
          RpcCodes.InvalidRequest,
          `${GATEWAY_OPEN} was the first line of this connection, which carries MCP since; open a new connection for another session`,
        ).then(() => this.close());
        return;
      }
      if (id !== undefined) {
        const max = this.#connection.limits.maxRequestsInFlight;
        if (this.#inFlight.size >= max && !this.#inFlight.has(id)) {
          void this.#reply(
            id,
            RpcCodes.LimitExceeded,
            `${max} requests of this agent are waiting for their answers, the daemon's limit; wait for some before sending more`,
          );
          return;
        }
        this.#inFlight.add(id);
      } else if (message.method === 'notifications/cancelled' && isObject(message.params)) {
        // The gateway does not answer a request the agent cancelled.
        const cancelled = message.params.requestId;
        if (typeof cancelled === 'string' || typeof cancelled === 'number')
          this.#inFlight.delete(cancelled);
      }
    }
    this.onmessage?.(message);
  }

  #reply(id: RequestId | null, code: number, message: string): Promise<void> {
    return this.#write(`${JSON.stringify({ jsonrpc: JSONRPC, id, error: { code, message } })}\n`);
  }

  #write(text: string): Promise<void> {
    const { socket, limits } = this.#connection;
    if (socket.destroyed || socket.writableEnded) return Promise.resolve();
    const flushed = socket.write(text);
    if (socket.writableLength > limits.maxPendingWriteBytes) {
      this.#log(
        `an agent connection left more than ${limits.maxPendingWriteBytes} bytes of MCP messages unread; closing it`,
      );
      socket.destroy();
      return Promise.resolve();
    }
    if (flushed) return Promise.resolve();
    // Backpressure: take no new work from an agent that does not read what it asked for.
    socket.pause();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#cutOff);
    this.#inFlight.clear();
    for (const resolve of this.#waiting.splice(0)) resolve();
    this.onclose?.();
  }
}
