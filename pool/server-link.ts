/**
 * The agent router's way to its server (agent-routing.ts): the connection's SDK Client once it
 * is there, whether our capabilities are on it, and whether the connection has ended. The
 * router's parts (subscriptions.ts, log-level.ts, roots.ts, server-requests.ts) send through it
 * and all see the same end.
 *
 * Guarantees:
 * - `live(what)` gives the client only while the connection has not ended; else it throws a
 *   PoolError naming the server and `what`.
 * - `send()` (a request of ours) rejects with a PoolError once the connection has ended, else
 *   with the server's error, its message with the connection's credentials hidden (`scrub`).
 *   The result is not checked or copied (PassthroughResult).
 * - `declared()` gives the client only when we installed our capabilities on it (a foreign
 *   connector's client declared none) and the connection has not ended.
 * - `close()` is final: `closed` aborts, with a PoolError saying the connection has ended.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { PoolError } from './errors.js';

/** What a result from the server may be: any object, kept as it is (no copy, nothing dropped). */
export const PassthroughResult = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  { message: 'the server answered with something that is not a JSON object' },
);

export class ServerLink {
  /** The server's name in the config, for errors. */
  readonly server: string;
  readonly #closed = new AbortController();
  #client: Client | undefined;
  /** Whether our handlers and capabilities are on the client (install before connect). */
  #installed = false;
  #scrub: ((text: string) => string) | undefined;

  constructor(server: string) {
    this.server = server;
  }

  /** Aborts when the connection ends (`close()`). */
  get closed(): AbortSignal {
    return this.#closed.signal;
  }

  /** Our capabilities and handlers are on `client` (before connect). */
  installed(client: Client): void {
    this.#client = client;
    this.#installed = true;
  }

  /**
   * The connection is live on `client`; false when that is the client we already had. A client
   * we did not install on declared none of our capabilities.
   */
  bind(client: Client, scrub: ((text: string) => string) | undefined): boolean {
    this.#scrub = scrub;
    if (this.#client === client) return false;
    this.#client = client;
    this.#installed = false;
    return true;
  }

  /** The client while the connection lasts; else a PoolError naming `what` was not done. */
  live(what: string): Client {
    const client = this.#client;
    if (!client || this.#closed.signal.aborted) {
      throw new PoolError(`server "${this.server}": the connection has ended (${what})`);
    }
    return client;
  }

  /** The error for what was asked of a connection that has ended. */
  ended(): PoolError {
    return new PoolError(`server "${this.server}": the connection has ended`);
  }

  /** A request of ours to the server; its errors with credentials hidden. */
  async send(client: Client, method: string, params: Record<string, unknown>): Promise<void> {
    try {
      await client.request({ method, params }, PassthroughResult);
    } catch (err) {
      if (this.#closed.signal.aborted) {
        throw new PoolError(`server "${this.server}": the connection has ended (${method})`);
      }
      if (this.#scrub && err instanceof Error) err.message = this.#scrub(err.message);
      throw err;
    }
  }

  /**
   * The client, when our capabilities are on it (install) and the connection lasts: only a
   * client that declared a capability may send its notifications (the SDK enforces it too).
   */
  declared(): Client | undefined {
    return this.#installed && !this.#closed.signal.aborted ? this.#client : undefined;
  }

  close(): void {
    this.#closed.abort(this.ended());
  }
}
