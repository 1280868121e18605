/**
 * Resource subscriptions on one shared connection, refcounted over the agents attached to it
 * (Attachment.subscribe / unsubscribe; the agent router, agent-routing.ts, owns the agents).
 *
 * Guarantees:
 * - Per uri, the server gets one `resources/subscribe` for the first agent and one
 *   `resources/unsubscribe` when the last one lets go (`unsubscribe` or `drop` on detach).
 *   Changes to one uri are sent one at a time, in order.
 * - `subscribe` rejects with an RpcError (MethodNotFound) when the server declares no
 *   `resources.subscribe`, with the server's error (the agent is then not subscribed), or with
 *   a PoolError once the agent detached or the connection ended. Subscribing twice is once.
 * - `unsubscribe` never rejects: the agent hears no more updates of the uri either way; a
 *   failure to tell the server is reported through `warn` (on `drop`, only while the
 *   connection lasts). It does nothing once the agent detached.
 * - `subscribersOf(uri)` is who hears `notifications/resources/updated` of that uri.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { messageOf, PoolError, RpcError } from './errors.js';
import type { ServerLink } from './server-link.js';
import type { PoolAgent } from './types.js';

/** An attached agent as its subscriptions see it (the router's per-attachment state). */
export interface Subscriber {
  readonly agent: PoolAgent;
  /** The uris it is subscribed to on this connection. */
  readonly uris: Set<string>;
  /** Detached (or the connection ended). */
  readonly ended: boolean;
}

interface UriState {
  readonly holders: Set<Subscriber>;
  /** Whether the server is subscribed (as far as its answers told us). */
  onServer: boolean;
  /** The last change sent for this uri; the next one waits for it. */
  chain: Promise<void>;
}

export class Subscriptions {
  readonly #link: ServerLink;
  readonly #warn: (message: string) => void;
  readonly #uris = new Map<string, UriState>();

  constructor(link: ServerLink, warn: (message: string) => void) {
    this.#link = link;
    this.#warn = warn;
  }

  /** How many uris some agent is subscribed to (what keeps a server from idling). */
  get size(): number {
    let n = 0;
    for (const u of this.#uris.values()) if (u.holders.size > 0) n += 1;
    return n;
  }

  /** The agents subscribed to `uri`; undefined when none is. */
  subscribersOf(uri: string): ReadonlySet<Subscriber> | undefined {
    return this.#uris.get(uri)?.holders;
  }

  async subscribe(s: Subscriber, uri: string): Promise<void> {
    const server = this.#link.server;
    if (s.ended) {
      throw new PoolError(
        `server "${server}": ${s.agent.label} is no longer attached (resources/subscribe)`,
      );
    }
    const client = this.#link.live('resources/subscribe');
    if (!client.getServerCapabilities()?.resources?.subscribe) {
      throw new RpcError(
        ErrorCode.MethodNotFound,
        `server "${server}" does not support resource subscriptions (resources/subscribe)`,
      );
    }
    if (s.uris.has(uri)) return;
    const u = this.#uriState(uri);
    s.uris.add(uri);
    u.holders.add(s);
    try {
      await this.#sync(uri, u);
    } catch (err) {
      s.uris.delete(uri);
      u.holders.delete(s);
      throw err;
    }
  }

  async unsubscribe(s: Subscriber, uri: string): Promise<void> {
    if (s.ended || !s.uris.delete(uri)) return;
    const u = this.#uris.get(uri);
    if (!u) return;
    u.holders.delete(s);
    await this.#sync(uri, u).catch((err: unknown) => {
      // The agent is unsubscribed either way: it hears no more updates of this uri.
      this.#warn(`server "${this.#link.server}": resources/unsubscribe ${uri}: ${messageOf(err)}`);
    });
  }

  /** `s` detached: it lets go of every uri. */
  drop(s: Subscriber): void {
    for (const uri of s.uris) {
      const u = this.#uris.get(uri);
      if (!u) continue;
      u.holders.delete(s);
      this.#sync(uri, u).catch((err: unknown) => {
        if (!this.#link.closed.aborted)
          this.#warn(
            `server "${this.#link.server}": resources/unsubscribe ${uri}: ${messageOf(err)}`,
          );
      });
    }
    s.uris.clear();
  }

  /** The connection ended: nothing more is sent. */
  clear(): void {
    this.#uris.clear();
  }

  #uriState(uri: string): UriState {
    let u = this.#uris.get(uri);
    if (!u) {
      u = { holders: new Set(), onServer: false, chain: Promise.resolve() };
      this.#uris.set(uri, u);
    }
    return u;
  }

  /** Brings the server's subscription to `uri` in line with its holders, after earlier changes. */
  #sync(uri: string, u: UriState): Promise<void> {
    const next = u.chain.then(async () => {
      if (this.#link.closed.aborted) throw this.#link.ended();
      const want = u.holders.size > 0;
      if (want === u.onServer) return;
      const method = want ? 'resources/subscribe' : 'resources/unsubscribe';
      const client = this.#link.live(method);
      await this.#link.send(client, method, { uri });
      u.onServer = want;
      if (!want && u.holders.size === 0 && this.#uris.get(uri) === u) this.#uris.delete(uri);
    });
    u.chain = next.catch(() => undefined);
    return next;
  }
}
