/**
 * Cuts a byte stream into lines for `mcpctl serve`, which looks at each whole line before it
 * passes it on (keeper.ts), and hands on every byte unchanged: serve is a pipe, so a line too
 * long to hold is passed on in pieces (the daemon refuses it), never dropped or decoded. (Unlike
 * the pool's LineQueue, which drops such a line from a server, and the socket's LineReader,
 * which refuses it; see pool/line-queue.ts.)
 *
 * Guarantees:
 * - Every byte pushed comes out once, in order: as whole lines (`whole: true`, the newline
 *   included), or, for a line longer than `maxLineBytes`, as pieces (`whole: false`) handed on
 *   as they come, the last one ending with its newline. So at most `maxLineBytes` of a line
 *   is ever held (the MCP message limit: a longer line is refused by the daemon anyway).
 * - A whole line is a view of the chunk it arrived in when it arrived in one; only a line
 *   spread over chunks is copied (once).
 * - `reset()` drops a partial line (the stream it came from ended).
 */

export type LineSink = (line: Buffer, whole: boolean) => void;

export class LineSplitter {
  readonly #max: number;
  readonly #sink: LineSink;
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** Inside a line past the limit: its bytes are handed on as they come. */
  #streaming = false;

  constructor(maxLineBytes: number, sink: LineSink) {
    this.#max = maxLineBytes;
    this.#sink = sink;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl + 1);
      start = nl + 1;
      if (this.#streaming) {
        this.#streaming = false;
        this.#sink(piece, false);
      } else if (this.#heldBytes === 0) this.#sink(piece, true);
      else {
        this.#held.push(piece);
        const line = Buffer.concat(this.#held, this.#heldBytes + piece.length);
        this.#held = [];
        this.#heldBytes = 0;
        this.#sink(line, true);
      }
    }
    if (start >= chunk.length) return;
    const rest = chunk.subarray(start);
    if (this.#streaming) {
      this.#sink(rest, false);
      return;
    }
    this.#held.push(rest);
    this.#heldBytes += rest.length;
    if (this.#heldBytes > this.#max) {
      // Too long to hold: hand it on untouched from here to its newline.
      this.#streaming = true;
      const held = Buffer.concat(this.#held, this.#heldBytes);
      this.#held = [];
      this.#heldBytes = 0;
      this.#sink(held, false);
    }
  }

  /** Whether part of a line is held or being handed on. */
  get midLine(): boolean {
    return this.#streaming || this.#heldBytes > 0;
  }

  reset(): void {
    this.#held = [];
    this.#heldBytes = 0;
    this.#streaming = false;
  }
}
