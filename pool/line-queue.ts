/**
 * The lines of a stdio server's stdout, queued and taken one at a time, so the reader can stop
 * between two lines and go on later (the transport pauses a server that writes too fast).
 *
 * One of three newline framings, each with the limit policy its stream needs: here a line past
 * the limit is dropped and reported (a server's one bad line must not end its connection, and
 * the probe finds the request it answered); `mcpctl serve`'s LineSplitter
 * (cli/serve/line-splitter.ts) passes every byte on, since a pipe decides nothing; the daemon
 * socket's LineReader (cli/rpc/protocol.ts) refuses the line, ending a client that broke the
 * protocol. They share no code because they share no policy, and pool/ and cli/ may not import
 * each other.
 *
 * Guarantees: `\n` ends a line and a `\r` before it is dropped; bytes are decoded as UTF-8 per
 * whole line, so a character split across chunks survives; the newline search never rescans
 * bytes. A line longer than `maxBytes` is never held: once the line being received passes it,
 * its bytes go through a MessageProbe as they arrive and are dropped, and it comes out, in its
 * place among the lines, as a DroppedLine (its size and what the probe learnt). So the line
 * being received costs at most `maxBytes`, whatever the stream; whole lines not taken yet are
 * what was appended meanwhile (the transport stops reading while any wait).
 */
import { MAX_MESSAGE_BYTES } from '../api/index.js';
import { MessageProbe, type Probed } from './message-probe.js';

/** A line over the limit, dropped unread: how long it was and what it was (as far as known). */
export interface DroppedLine extends Probed {
  /** Its length in bytes (without the newline). */
  readonly bytes: number;
}

/** The line being dropped: counted and probed, not kept. */
interface Dropping {
  readonly probe: MessageProbe;
  bytes: number;
}

export class LineQueue {
  /** Whole lines not taken yet (bytes without the newline), and dropped ones, in order. */
  readonly #lines: Array<Buffer | DroppedLine> = [];
  /** Index of the next line to take (shifting an array per line would be quadratic). */
  #head = 0;
  /** The line being received: its pieces so far and their total length. */
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #dropping: Dropping | undefined;

  constructor(readonly maxBytes = MAX_MESSAGE_BYTES) {}

  /** Takes the next bytes; returns how many of them were dropped (of a line past the limit). */
  append(chunk: Buffer): number {
    let dropped = 0;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.length : newline;
      if (this.#dropping === undefined && this.#partialBytes + (end - start) > this.maxBytes) {
        // Past the limit: what was kept of this line goes through the probe, then away.
        const dropping: Dropping = { probe: new MessageProbe(), bytes: 0 };
        for (const piece of this.#partial) this.#drop(dropping, piece);
        dropped += this.#partialBytes;
        this.#partial = [];
        this.#partialBytes = 0;
        this.#dropping = dropping;
      }
      const piece = chunk.subarray(start, end);
      if (this.#dropping !== undefined) {
        this.#drop(this.#dropping, piece);
        dropped += piece.length;
      } else if (newline < 0) {
        this.#partial.push(piece);
        this.#partialBytes += piece.length;
      }
      if (newline < 0) break;
      this.#endLine(piece);
      start = newline + 1;
    }
    return dropped;
  }

  /** Bytes held: whole lines not taken yet and the line being received (not a dropped one). */
  get heldBytes(): number {
    let n = this.#partialBytes;
    for (let i = this.#head; i < this.#lines.length; i += 1) {
      const line = this.#lines[i];
      if (Buffer.isBuffer(line)) n += line.length;
    }
    return n;
  }

  hasLine(): boolean {
    return this.#head < this.#lines.length;
  }

  /** The next whole line (or dropped one), or undefined when none is complete yet. */
  next(): string | DroppedLine | undefined {
    const line = this.#lines[this.#head];
    if (line === undefined) return undefined;
    this.#head += 1;
    if (this.#head === this.#lines.length) {
      this.#lines.length = 0;
      this.#head = 0;
    }
    if (!Buffer.isBuffer(line)) return line;
    const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
    return line.toString('utf8', 0, end);
  }

  clear(): void {
    this.#lines.length = 0;
    this.#head = 0;
    this.#partial = [];
    this.#partialBytes = 0;
    this.#dropping = undefined;
  }

  /** A newline ended the line being received; `last` is its piece in this chunk. */
  #endLine(last: Buffer): void {
    const dropping = this.#dropping;
    if (dropping !== undefined) {
      this.#dropping = undefined;
      this.#lines.push({ ...dropping.probe.result(), bytes: dropping.bytes });
      return;
    }
    const line = this.#partial.length === 0 ? last : Buffer.concat([...this.#partial, last]);
    this.#partial = [];
    this.#partialBytes = 0;
    this.#lines.push(line);
  }

  #drop(dropping: Dropping, piece: Buffer): void {
    dropping.bytes += piece.length;
    dropping.probe.push(piece);
  }
}
