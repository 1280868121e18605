/**
 * Splits a byte stream (a stdio server's stdout) into lines, one at a time, so the reader can
 * stop between two lines and go on later (the transport pauses a server that writes too fast).
 *
 * Guarantees: `\n` ends a line and a `\r` before it is dropped; bytes are decoded as UTF-8 per
 * whole line, so a character split across chunks survives; data that is not yet a whole line,
 * plus lines not taken yet, never exceed `maxBytes` (append throws instead, like the SDK's
 * ReadBuffer, whose 10 MiB default it keeps); the newline search never rescans bytes.
 */
export const DEFAULT_MAX_PENDING_BYTES = 10 * 1024 * 1024;

export class LineFramer {
  #buf: Buffer | undefined;
  /** Bytes of #buf known to hold no newline. */
  #scanned = 0;
  /** Index of the next newline once found, else -1. */
  #newline = -1;

  constructor(readonly maxBytes = DEFAULT_MAX_PENDING_BYTES) {}

  append(chunk: Buffer): void {
    const size = (this.#buf?.length ?? 0) + chunk.length;
    if (size > this.maxBytes) {
      this.clear();
      throw new Error(`a stdout line is longer than ${this.maxBytes} bytes`);
    }
    this.#buf = this.#buf ? Buffer.concat([this.#buf, chunk]) : chunk;
  }

  hasLine(): boolean {
    if (this.#newline >= 0) return true;
    if (!this.#buf) return false;
    this.#newline = this.#buf.indexOf(10, this.#scanned);
    if (this.#newline < 0) this.#scanned = this.#buf.length;
    return this.#newline >= 0;
  }

  /** The next whole line, or undefined when none is complete yet. */
  next(): string | undefined {
    if (!this.hasLine() || !this.#buf) return undefined;
    const buf = this.#buf;
    const at = this.#newline;
    const end = at > 0 && buf[at - 1] === 13 ? at - 1 : at;
    const line = buf.toString('utf8', 0, end);
    this.#buf = at + 1 < buf.length ? buf.subarray(at + 1) : undefined;
    this.#scanned = 0;
    this.#newline = -1;
    return line;
  }

  clear(): void {
    this.#buf = undefined;
    this.#scanned = 0;
    this.#newline = -1;
  }
}
