/**
 * The agent's lines that wait for a gateway while `mcpctl serve` has none (keeper.ts): a daemon
 * is being brought back, or the session waits for the agent's next request to bring one.
 *
 * Guarantees:
 * - Lines keep the agent's order; a request sent again after its daemon went away goes before
 *   every line that came later (`prepend`).
 * - They are bounded: `full` once more than MAX_QUEUED_BYTES wait, and the keeper then reads no
 *   more of the agent's input until they are sent or answered.
 * - A request waits until its `until`, then is answered with the `expired` message (one timer,
 *   for the first request to expire); `failAll` answers every waiting request at once; a
 *   cancelled one is taken out unanswered. `changed` runs whenever the bytes waiting went down
 *   or up, so the keeper can read the agent again (or stop).
 */
import type { AgentCall } from './in-flight.js';

/** Lines of the agent's held while no gateway is connected, at most (then it is not read). */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** A line of the agent's waiting for a gateway. */
export interface Queued {
  readonly line: Buffer;
  /** A request: its id, method and the time it stops waiting. */
  readonly request?: { readonly id: string; readonly call: AgentCall; readonly until: number };
}

export interface WaitingLinesOptions {
  /** An error answer of serve's own to the agent's request `id` (the id's JSON text). */
  readonly answer: (id: string, message: string) => void;
  /** The bytes waiting changed: whether to read the agent may have too. */
  readonly changed: () => void;
  /** What a request that waited its time is answered. */
  readonly expired: string;
}

export class WaitingLines {
  readonly #o: WaitingLinesOptions;
  #queue: Queued[] = [];
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: WaitingLinesOptions) {
    this.#o = o;
  }

  get length(): number {
    return this.#queue.length;
  }

  /** More wait than the agent may make serve hold: its input is not read until they go. */
  get full(): boolean {
    return this.#bytes > MAX_QUEUED_BYTES;
  }

  add(q: Queued): void {
    this.#queue.push(q);
    this.#bytes += q.line.length;
    this.#o.changed();
    if (q.request) this.#arm();
  }

  /** Lines to go before every waiting one (requests its gone daemon never ran). */
  prepend(again: Queued[]): void {
    this.#queue = [...again, ...this.#queue];
    for (const q of again) this.#bytes += q.line.length;
    this.#arm();
  }

  /** The agent cancelled its request `id`: it goes nowhere, and is not answered. */
  remove(id: string): void {
    this.#queue = this.#queue.filter((q) => {
      if (q.request?.id !== id) return true;
      this.#bytes -= q.line.length;
      return false;
    });
    this.#o.changed();
  }

  /** Every waiting line, in order, for the gateway just restored; none wait after. */
  takeAll(): Queued[] {
    const queued = this.#queue;
    this.#queue = [];
    this.#bytes = 0;
    clearTimeout(this.#timer);
    return queued;
  }

  /** Every waiting request is answered with `message` now; the other lines are dropped. */
  failAll(message: string): void {
    clearTimeout(this.#timer);
    const queued = this.#queue;
    this.#queue = [];
    this.#bytes = 0;
    for (const q of queued) if (q.request) this.#o.answer(q.request.id, message);
    this.#o.changed();
  }

  /** No timer left behind (serve ends). */
  stop(): void {
    clearTimeout(this.#timer);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    const first = this.#queue.find((q) => q.request)?.request;
    if (!first) return;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, first.until - Date.now()));
  }

  /** Requests that waited their time are answered; the others wait on. */
  #expire(): void {
    const now = Date.now();
    const expired = this.#queue.filter((q) => q.request && q.request.until <= now);
    this.#queue = this.#queue.filter((q) => !expired.includes(q));
    for (const q of expired) {
      this.#bytes -= q.line.length;
      if (q.request) this.#o.answer(q.request.id, this.#o.expired);
    }
    this.#o.changed();
    this.#arm();
  }
}
