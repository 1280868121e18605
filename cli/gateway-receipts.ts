/**
 * The daemon's side of gateway protocol 3's receipts (cli/PROTOCOL.md, "When the daemon goes
 * away"): the agent's messages pass through here to its gateway, each request only once the
 * receipt naming it is written to the socket. So when a daemon dies, the serve that reads the
 * connection to its end knows every request the daemon may have run (a receipt named it), and
 * may send any other to the next daemon: it never ran.
 *
 * Guarantees:
 * - A request reaches the gateway only after the write of a receipt naming its id completed
 *   (its callback, without error): the bytes are in the kernel then, on their way to serve,
 *   whatever happens to this process next. A receipt that fails to be written lets nothing
 *   it names through.
 * - Messages reach the gateway in the order they came: a notification (a cancellation) waits
 *   behind a request that waits for its receipt.
 * - One receipt names every request that came in one turn of the event loop.
 * - After `close()` nothing more reaches the gateway.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { JSONRPC, REQUESTS_RECEIVED } from './rpc-protocol.js';

interface Entry {
  readonly message: JSONRPCMessage;
  /** Sent on, once every request before it is too. Notifications and answers need no receipt. */
  ready: boolean;
}

export class ReceiptGate {
  readonly #write: (line: string, done: (written: boolean) => void) => void;
  readonly #deliver: (message: JSONRPCMessage) => void;
  readonly #queue: Entry[] = [];
  /** Requests that came this turn, for the next receipt. */
  #unreceipted: Entry[] = [];
  #closed = false;

  /**
   * @param write writes one line on the agent's connection and calls `done` with whether it
   *   was written whole (false: the connection failed or is closed).
   * @param deliver hands a message to the gateway.
   */
  constructor(
    write: (line: string, done: (written: boolean) => void) => void,
    deliver: (message: JSONRPCMessage) => void,
  ) {
    this.#write = write;
    this.#deliver = deliver;
  }

  push(message: JSONRPCMessage): void {
    if (this.#closed) return;
    const request = 'method' in message && 'id' in message && message.id !== undefined;
    if (!request && this.#queue.length === 0) return this.#deliver(message);
    const entry: Entry = { message, ready: !request };
    this.#queue.push(entry);
    if (!request) return;
    this.#unreceipted.push(entry);
    if (this.#unreceipted.length === 1) queueMicrotask(() => this.#sendReceipt());
  }

  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
    this.#unreceipted = [];
  }

  #sendReceipt(): void {
    const entries = this.#unreceipted;
    this.#unreceipted = [];
    if (this.#closed || entries.length === 0) return;
    const ids = entries.map((e) => (e.message as { id: RequestId }).id);
    const line = `${JSON.stringify({ jsonrpc: JSONRPC, method: REQUESTS_RECEIVED, params: { ids } })}\n`;
    this.#write(line, (written) => {
      if (!written || this.#closed) return;
      for (const e of entries) e.ready = true;
      this.#drain();
    });
  }

  #drain(): void {
    while (!this.#closed && this.#queue[0]?.ready) {
      const entry = this.#queue.shift();
      if (entry) this.#deliver(entry.message);
    }
  }
}
