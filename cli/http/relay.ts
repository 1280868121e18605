/**
 * The transport a gateway of an HTTP agent session is connected to: the session decides which
 * of the agent's messages it gets (cli/http/agent-session.ts), and where what it sends goes.
 *
 * Guarantees: `deliver` hands a message (with its `extra`) to the gateway, in the order called;
 * `send` goes to the session's `out`; `close()` runs the session's `onClose`, then the
 * gateway's `onclose` once; after it `send` rejects and `deliver` does nothing.
 */
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

export interface RelayEnds {
  /** Where the gateway's messages go. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
  /** What closing the gateway's transport does beyond the gateway (may be nothing). */
  close(): Promise<void>;
}

export class Relay implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #ends: RelayEnds;
  #closed = false;

  constructor(ends: RelayEnds) {
    this.#ends = ends;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the agent session is closed'));
    return this.#ends.send(message, options);
  }

  deliver(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (!this.#closed) this.onmessage?.(message, extra);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#ends.close();
    } finally {
      this.onclose?.();
    }
  }
}
