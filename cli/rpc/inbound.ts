/**
 * The daemon's inbound framing under a shared budget: what every connection may make the
 * daemon hold for messages it has not finished sending.
 *
 * Guarantees:
 * - The bytes of unfinished messages held for all connections of a server together stay
 *   within `maxBufferedBytes` (give or take the one chunk that crossed it): the connection
 *   whose data would pass it is refused, and its bytes are given back.
 * - A connection holding an unfinished message that gets no new byte for `idleFrameMs` is
 *   refused (`onIdle`); a connection with nothing unfinished never times out here.
 * - `dispose()` gives back everything the connection held and stops its timer; it is
 *   idempotent, and nothing is held after it.
 */
import type { RpcLimits } from './limits.js';
import { LineReader, LineTooLongError, RpcCodes } from './protocol.js';

/** Bytes of unfinished messages, counted over every connection of one server. */
export class FrameBudget {
  #used = 0;

  constructor(readonly max: number) {}

  get used(): number {
    return this.#used;
  }

  /** Adds (or, negative, gives back) bytes. */
  add(bytes: number): void {
    this.#used += bytes;
  }

  get exceeded(): boolean {
    return this.#used > this.max;
  }
}

/** Why a connection is refused: the JSON-RPC error it gets before it is closed. */
export class FrameRefused extends Error {
  override name = 'FrameRefused';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class InboundFrames {
  readonly #reader: LineReader;
  readonly #budget: FrameBudget;
  readonly #idleMs: number;
  readonly #onIdle: () => void;
  #held = 0;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    budget: FrameBudget,
    limits: Pick<RpcLimits, 'maxLineBytes' | 'idleFrameMs'>,
    onIdle: () => void,
  ) {
    this.#reader = new LineReader(limits.maxLineBytes);
    this.#budget = budget;
    this.#idleMs = limits.idleFrameMs;
    this.#onIdle = onIdle;
  }

  /** Bytes this connection holds now. */
  get held(): number {
    return this.#held;
  }

  /**
   * The complete lines of `chunk`.
   * @throws FrameRefused when the line is too long or the shared budget is spent; the
   *   connection's bytes are already given back then.
   */
  push(chunk: Buffer): string[] {
    let lines: string[];
    try {
      lines = this.#reader.push(chunk);
    } catch (err) {
      this.dispose();
      if (err instanceof LineTooLongError)
        throw new FrameRefused(RpcCodes.InvalidRequest, err.message);
      throw err;
    }
    const now = this.#reader.bufferedBytes;
    this.#budget.add(now - this.#held);
    this.#held = now;
    if (now > 0 && this.#budget.exceeded) {
      const used = this.#budget.used;
      this.dispose();
      throw new FrameRefused(
        RpcCodes.LimitExceeded,
        `the daemon holds ${used} bytes of unfinished messages, past its limit of ${this.#budget.max}; closing this connection (send each message whole, then its newline)`,
      );
    }
    if (now === 0) this.#stopTimer();
    else if (this.#idle) this.#idle.refresh();
    else this.#idle = setTimeout(() => this.#onIdle(), this.#idleMs);
    return lines;
  }

  dispose(): void {
    this.#budget.add(-this.#held);
    this.#held = 0;
    this.#reader.clear();
    this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = undefined;
  }
}
