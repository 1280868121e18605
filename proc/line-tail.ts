/**
 * The last N lines of a text stream (a server's stderr), for `describe` and error messages.
 *
 * Guarantees:
 * - Holds at most `maxLines` lines of at most `maxLineLength` characters each, so a chatty or
 *   binary-spewing server cannot grow the daemon's memory.
 * - Lines split across chunks are joined; `\r\n` and `\n` both end a line; a final line
 *   without a newline is kept (visible in `lines()` before the stream ends).
 */
export class LineTail {
  readonly #maxLines: number;
  readonly #maxLineLength: number;
  readonly #lines: string[] = [];
  #partial = '';

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

  #add(raw: string): void {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.length > this.#maxLineLength) line = `${line.slice(0, this.#maxLineLength)}…`;
    this.#lines.push(line);
    if (this.#lines.length > this.#maxLines)
      this.#lines.splice(0, this.#lines.length - this.#maxLines);
  }
}
