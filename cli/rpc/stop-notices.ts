/**
 * What a stopping daemon tells the agent connections it is about to close: whether their
 * `mcpctl serve` should come back at once (a restart, a socket taken over) or at the agent's
 * next request (`mcpctl stop`, a signal). See cli/rpc/PROTOCOL.md, "When the daemon goes away".
 *
 * Guarantees:
 * - `announce` sends one notice to every connection registered (those that speak gateway
 *   protocol 2 or later), and to any that registers after it; it resolves once each notice is
 *   written or `withinMs` passed (an agent that does not read cannot hold up the stop).
 * - A connection sends at most one notice; one that closed is forgotten.
 */
import type { ReconnectMode } from './protocol.js';

export interface StopNotice {
  readonly reconnect: ReconnectMode;
  /** For serve's log: what stopped the daemon (`mcpctl stop`, `SIGTERM`, …). */
  readonly reason: string;
}

/** Writes the notice on one connection; resolves once it is written (or could not be). */
export type NoticeSender = (notice: StopNotice) => Promise<void>;

export class StopNotices {
  readonly #senders = new Set<NoticeSender>();
  #notice: StopNotice | undefined;

  /** Registers a connection; returns the function that forgets it (call it on close). */
  add(send: NoticeSender): () => void {
    if (this.#notice) {
      void send(this.#notice).catch(() => undefined);
      return () => undefined;
    }
    this.#senders.add(send);
    return () => this.#senders.delete(send);
  }

  /** How many connections a notice would reach now. */
  get size(): number {
    return this.#senders.size;
  }

  async announce(notice: StopNotice, withinMs = 1000): Promise<void> {
    if (this.#notice) return;
    this.#notice = notice;
    const senders = [...this.#senders];
    this.#senders.clear();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)));
    await Promise.race([
      Promise.all(senders.map((send) => send(notice).catch(() => undefined))),
      late,
    ]);
    clearTimeout(timer);
  }
}
