/**
 * The last N lines of a text stream (a server's stderr), for `describe` and error messages.
 *
 * Guarantees:
 * - Holds at most `maxLines` lines of at most `maxLineLength` characters each, so a chatty or
 *   binary-spewing server cannot grow the daemon's memory.
 * - Lines split across chunks are joined; `\r\n` and `\n` both end a line; a final line
 *   without a newline is kept (visible in `lines()` before the stream ends).
 * - Every whole line gets the next sequence number (0, 1, …): `since(seq)` gives the whole
 *   lines from `seq` on that are still kept, and how many of them were already dropped, so a
 *   follower (`mcpctl logs -f`) sees each line once, never a line twice, and knows what it
 *   missed. A pending partial line is not in `since` until it ends.
 */

/** Whole lines from a sequence number on (LineTail.since). */
export interface LinesSince {
  readonly lines: readonly string[];
  /** Lines from the asked sequence number on that were dropped before being asked for. */
  readonly skipped: number;
  /** The sequence number to ask from next time. */
  readonly next: number;
}

export class LineTail {
  readonly #maxLines: number;
  readonly #maxLineLength: number;
  readonly #lines: string[] = [];
  #partial = '';
  /** Whole lines ever added: the sequence number of the next one. */
  #total = 0;

  constructor(maxLines = 200, maxLineLength = 2000) {
    this.#maxLines = maxLines;
    this.#maxLineLength = maxLineLength;
  }

  push(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    // An endless line must not grow without bound either.
    if (this.#partial.length > this.#maxLineLength) {
      parts.push(this.#partial);
      this.#partial = '';
    }
    for (const line of parts) this.#add(line);
  }

  /** Adds a whole line (e.g. a note of our own), after any pending partial line. */
  note(line: string): void {
    this.flush();
    this.#add(line);
  }

  /** Ends a pending partial line (call when the stream ends). */
  flush(): void {
    if (this.#partial !== '') {
      this.#add(this.#partial);
      this.#partial = '';
    }
  }

  lines(): string[] {
    return this.#partial === ''
      ? [...this.#lines]
      : [...this.#lines, this.#partial].slice(-this.#maxLines);
  }

  since(seq: number): LinesSince {
    const first = this.#total - this.#lines.length;
    const from = Math.max(seq, first);
    return {
      lines: this.#lines.slice(from - first),
      skipped: Math.max(0, first - seq),
      next: this.#total,
    };
  }

  #add(raw: string): void {
    this.#total += 1;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.length > this.#maxLineLength) line = `${line.slice(0, this.#maxLineLength)}…`;
    this.#lines.push(line);
    if (this.#lines.length > this.#maxLines)
      this.#lines.splice(0, this.#lines.length - this.#maxLines);
  }
}
