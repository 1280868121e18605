/**
 * The agent's requests that the current gateway has not answered, and what is known of each
 * one's sending: the ledger `mcpctl serve`'s session keeper (keeper.ts) reads when a daemon
 * goes away, to tell a call to send again from one to fail.
 *
 * Guarantees:
 * - `neverRan` is the one place where the keeper's "a request its daemon provably never ran"
 *   (its header, issue 31) is decided: its line never reached the kernel whole (`unsent`), or
 *   it was the last line written to that connection and the connection ended in a reset
 *   (ECONNRESET on read: bytes of ours were still queued unread). Anything else may have run.
 * - A line is kept to be sent again only while that can still be proven: `initialize`'s always
 *   (sent again while unanswered), any other's at most MAX_RESEND_BYTES and only until it is
 *   settled or another line was written after it (`forgetLine`).
 * - It costs nothing per call beyond the one `Sending` record: no word of the daemon's needed.
 */

/** The last request's line, kept to be sent again should its daemon not take it, at most. */
export const MAX_RESEND_BYTES = 4 * 1024 * 1024;

/** A request of the agent's that the current gateway has not answered. */
export interface AgentCall {
  readonly method: string;
  /** A task-augmented tools/call: its answer may name a task. */
  readonly task: boolean;
  /**
   * Its line while it may be sent again: `initialize`'s always (sent again while unanswered),
   * any other's while it is the last line written to its gateway (see Sending), within
   * MAX_RESEND_BYTES.
   */
  line?: Buffer;
  /** Its last sending to a gateway, if it was sent. */
  sending?: Sending;
}

/**
 * What is known of one sending of a request to one gateway, so that when that gateway goes
 * away serve can tell a request its daemon never ran (sent again) from one it may have run.
 * - `writing`: handed to the socket; the write has not completed.
 * - `unsent`: provably not one whole line reached the daemon: the socket was closed already,
 *   or the write failed while it was the only one under way (a failed write of several lines
 *   at once may have delivered the first ones).
 * - `written`: in the kernel, on its way to the daemon; that it was never read, only a reset
 *   right after it says (GoneGateway.reset).
 */
export interface Sending {
  readonly gen: number;
  state: 'writing' | 'unsent' | 'written';
}

/** What the keeper knew of a gateway's connection when it closed. */
export interface GoneGateway {
  readonly gen: number;
  /** The request whose line was the last one written to this gateway, if the last was one. */
  readonly last?: AgentCall;
  /** The connection ended in a reset: the daemon closed with bytes of ours unread (Linux). */
  readonly reset?: boolean;
}

/**
 * Whether the request `call`, unanswered when the gateway `current` went away, provably never
 * ran there: its line never reached the daemon whole, or it was the last line written and the
 * connection ended in a reset (its bytes were still queued unread).
 */
export function neverRan(current: GoneGateway, call: AgentCall): boolean {
  const sending = call.sending;
  if (!sending || sending.gen !== current.gen) return false;
  if (sending.state === 'unsent') return true;
  return sending.state === 'written' && current.reset === true && current.last === call;
}

/** Lets go of a call's line (it can no longer be proven unread); initialize keeps its own. */
export function forgetLine(call: AgentCall): void {
  if (call.method !== 'initialize') call.line = undefined;
}

/** The agent's requests in flight on the current gateway, by the id text the agent gave. */
export class InFlightCalls {
  readonly #calls = new Map<string, AgentCall>();

  /** `call` (`line`) is being written to the gateway of generation `gen`: its sending. */
  sent(id: string, call: AgentCall, gen: number, line: Buffer): Sending {
    const sending: Sending = { gen, state: 'writing' };
    call.sending = sending;
    if (call.method !== 'initialize' && line.length <= MAX_RESEND_BYTES) call.line = line;
    this.#calls.set(id, call);
    return sending;
  }

  get(id: string): AgentCall | undefined {
    return this.#calls.get(id);
  }

  /** The agent's request `id` needs nothing more from this gateway: answered or cancelled. */
  settle(id: string): AgentCall | undefined {
    const call = this.#calls.get(id);
    if (!call) return undefined;
    this.#calls.delete(id);
    forgetLine(call);
    return call;
  }

  /** Every call still in flight, and none any more (the gateway they were sent to is gone). */
  takeAll(): Map<string, AgentCall> {
    const all = new Map(this.#calls);
    this.#calls.clear();
    return all;
  }
}
