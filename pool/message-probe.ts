/**
 * What a JSON-RPC message too large to keep is, learnt from its bytes as they stream past and
 * are dropped: its top-level `id`, and whether it has a top-level `method` (a request or a
 * notification) — so the one request it answers can be failed and nothing else.
 *
 * Guarantees:
 * - Memory is bounded whatever the input: a few counters plus at most MAX_CAPTURE bytes of the
 *   key, id or method being read. Nothing else of the message is kept.
 * - Only keys of the top-level object count, in any order: an `"id"` inside `params`,
 *   `result` or a string is never taken for the message's. Duplicate keys: the first wins.
 * - An id is a string or a number (JSON-RPC's); anything else, or one longer than
 *   MAX_CAPTURE, leaves the message without one. Keys are compared as written: one spelt with
 *   escapes (`"\u0069d"`) is not recognised (the request then waits for its timeout instead).
 * - Input that is not a JSON object, or that ends in the middle, gives what was learnt so far.
 * - Scanning stops once the id and the kind are both known; inside strings (most of a large
 *   message) it jumps from quote to quote with `indexOf` instead of looking at every byte.
 */

/** Bytes kept of a key, an id or a method name; past it the value is not taken. */
export const MAX_CAPTURE = 256;

export type ProbedKind = 'answer' | 'request' | 'notification' | 'unknown';

export interface Probed {
  readonly kind: ProbedKind;
  /** The top-level id of an answer or a request. */
  readonly id?: string | number;
  /** The top-level method of a request or a notification, when it was a short string. */
  readonly method?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** What the string or scalar being read at the top level is. */
type Capture = 'key' | 'id' | 'method' | 'skip';

export class MessageProbe {
  /** Nesting depth: 0 before the top-level `{`, 1 inside it. */
  #depth = 0;
  #done = false;
  #inString = false;
  /** Inside a string, the next byte is escaped (a `\` ended the last piece). */
  #escape = false;
  /** At depth 1: what comes next. */
  #expect: 'key' | 'colon' | 'value' | 'comma' = 'key';
  /** The top-level key whose value comes next. */
  #key: string | undefined;
  /** What the current string (or scalar) is read for, and its bytes so far. */
  #capture: Capture = 'skip';
  #bytes: number[] = [];
  #overflow = false;
  /** Reading an id that is a number (or another scalar). */
  #scalar = false;
  #id: string | number | undefined;
  #idSeen = false;
  #method: string | undefined;
  #hasMethod = false;
  #hasAnswerKey = false;

  /** The next bytes of the message, in order. */
  push(piece: Buffer): void {
    let i = 0;
    const end = piece.length;
    while (i < end && !this.#done) {
      if (this.#inString) {
        i = this.#string(piece, i);
        continue;
      }
      const c = piece[i] ?? 0;
      if (this.#scalar) {
        if (!isDelimiter(c)) {
          this.#take(c);
          i += 1;
          continue;
        }
        this.#endScalar();
      }
      this.#structure(c);
      i += 1;
    }
  }

  /** What was learnt; call once the message ended. */
  result(): Probed {
    if (this.#scalar) this.#endScalar();
    const id = this.#id;
    if (this.#hasMethod) {
      const method = this.#method;
      return id !== undefined
        ? { kind: 'request', id, ...(method !== undefined ? { method } : {}) }
        : { kind: 'notification', ...(method !== undefined ? { method } : {}) };
    }
    return id !== undefined ? { kind: 'answer', id } : { kind: 'unknown' };
  }

  /** One byte outside strings. */
  #structure(c: number): void {
    if (this.#depth === 0) {
      if (c === 0x7b) {
        this.#depth = 1;
        this.#expect = 'key';
      } else if (!isSpace(c)) {
        this.#done = true; // Not a JSON object: nothing to learn.
      }
      return;
    }
    const top = this.#depth === 1;
    switch (c) {
      case QUOTE:
        this.#inString = true;
        if (top && this.#expect === 'key') this.#begin('key');
        else if (top && this.#expect === 'value') {
          this.#begin(this.#valueCapture());
          this.#expect = 'comma';
        } else this.#begin('skip');
        return;
      case 0x7b: // {
      case 0x5b: // [
        if (top && this.#expect === 'value') {
          this.#expect = 'comma';
          if (this.#key === 'id') this.#idSeen = true; // An object or array is no id.
        }
        this.#depth += 1;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.#depth -= 1;
        if (this.#depth === 0) this.#done = true; // The top-level object ended.
        return;
      case 0x3a: // :
        if (top && this.#expect === 'colon') this.#expect = 'value';
        return;
      case 0x2c: // ,
        if (top) this.#expect = 'key';
        return;
      default:
        if (top && this.#expect === 'value' && !isSpace(c)) {
          // A number, true, false or null; only an id's is read.
          this.#expect = 'comma';
          if (this.#key === 'id' && !this.#idSeen) {
            this.#begin('id');
            this.#scalar = true;
            this.#take(c);
          }
        }
    }
  }

  #valueCapture(): Capture {
    if (this.#key === 'id' && !this.#idSeen) return 'id';
    if (this.#key === 'method' && this.#method === undefined) return 'method';
    return 'skip';
  }

  #begin(capture: Capture): void {
    this.#capture = capture;
    this.#bytes = [];
    this.#overflow = false;
  }

  #take(c: number): void {
    if (this.#capture === 'skip') return;
    if (this.#bytes.length >= MAX_CAPTURE) this.#overflow = true;
    else this.#bytes.push(c);
  }

  /** Inside a string from `i`: returns where scanning goes on (past the closing quote). */
  #string(piece: Buffer, i: number): number {
    let from = i;
    if (this.#escape) {
      this.#escape = false;
      this.#takeRange(piece, from, from + 1);
      from += 1;
    }
    for (;;) {
      const q = piece.indexOf(QUOTE, from);
      if (q < 0) {
        // The string goes on in the next piece; an odd run of `\` at the end escapes its start.
        this.#takeRange(piece, from, piece.length);
        this.#escape = backslashesBefore(piece, piece.length, from) % 2 === 1;
        return piece.length;
      }
      if (backslashesBefore(piece, q, from) % 2 === 1) {
        this.#takeRange(piece, from, q + 1);
        from = q + 1;
        continue;
      }
      this.#takeRange(piece, from, q);
      this.#inString = false;
      this.#endString();
      return q + 1;
    }
  }

  #takeRange(piece: Buffer, from: number, to: number): void {
    if (this.#capture === 'skip' || this.#overflow) return;
    const room = MAX_CAPTURE - this.#bytes.length;
    if (to - from > room) this.#overflow = true;
    for (let k = from; k < Math.min(to, from + room); k += 1) this.#bytes.push(piece[k] ?? 0);
  }

  #endString(): void {
    const capture = this.#capture;
    this.#capture = 'skip';
    if (capture === 'skip') return;
    const raw = this.#overflow ? undefined : Buffer.from(this.#bytes).toString('utf8');
    if (capture === 'key') {
      this.#key = raw;
      this.#expect = 'colon';
      if (raw === 'method') this.#hasMethod = true;
      if (raw === 'result' || raw === 'error') this.#hasAnswerKey = true;
    } else if (capture === 'id') {
      this.#idSeen = true;
      this.#id = raw === undefined ? undefined : decodeString(raw);
    } else {
      this.#method = raw === undefined ? undefined : decodeString(raw);
    }
    this.#stopWhenKnown();
  }

  #endScalar(): void {
    this.#scalar = false;
    this.#capture = 'skip';
    this.#idSeen = true;
    const raw = this.#overflow ? '' : Buffer.from(this.#bytes).toString('latin1');
    // Only a number is an id here (null, true, false are not, nor a malformed number).
    this.#id = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw) ? Number(raw) : undefined;
    this.#stopWhenKnown();
  }

  /** The id and the kind are known: the rest of the message cannot change what is done. */
  #stopWhenKnown(): void {
    if (this.#idSeen && (this.#hasAnswerKey || (this.#hasMethod && this.#method !== undefined)))
      this.#done = true;
  }
}

/** How many `\` come right before `at`, not looking before `from`. */
function backslashesBefore(piece: Buffer, at: number, from: number): number {
  let n = 0;
  for (let k = at - 1; k >= from && piece[k] === BACKSLASH; k -= 1) n += 1;
  return n;
}

/** The text of a JSON string's raw contents (escapes resolved); undefined if malformed. */
function decodeString(raw: string): string | undefined {
  try {
    const value: unknown = JSON.parse(`"${raw}"`);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDelimiter(c: number): boolean {
  return isSpace(c) || c === 0x2c || c === 0x7d || c === 0x5d;
}
