/**
 * A look at one MCP line without parsing it: the top-level `method`, `id`, and whether it is
 * a response (`result` or `error`). `mcpctl serve` looks at every line both ways with this to
 * know what to restore after a daemon restart (keeper.ts), so it must cost little.
 *
 * Guarantees:
 * - Reads the UTF-8 bytes as they are (every structural byte of JSON is ASCII, and no byte of
 *   a multi-byte character is): no string is made of the line, only of the values it returns.
 * - Nested values are skipped, never parsed: a string is crossed with one native search for
 *   its closing quote, so a large result costs a scan of its punctuation, not a parse.
 * - Only top-level keys count: an `"id"` inside `params` or `result` is never taken for the
 *   message's own.
 * - A line that is not one JSON object with well-formed keys gives `undefined` (the daemon
 *   answers it; serve only passes it on). The values are not validated beyond their kind: an
 *   id is a JSON string or number, kept as its text (`idText`); any other id is no id.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

export interface Peek {
  /** The `method` string, when the message has one (a request or a notification). */
  readonly method?: string;
  /** The id's JSON text, normalised (see idText), when it is a string or a number. */
  readonly id?: string;
  /** It has `result` or `error`: a response. */
  readonly response: boolean;
}

/** Looks at the message in `buf[start, end)` (one line, without its newline). */
export function peekMessage(buf: Buffer, start = 0, end = buf.length): Peek | undefined {
  let p = skipSpace(buf, start, end);
  if (p >= end || buf[p] !== OPEN_BRACE) return undefined;
  p = skipSpace(buf, p + 1, end);
  let method: string | undefined;
  let id: string | undefined;
  let response = false;
  if (p < end && buf[p] === CLOSE_BRACE) return { response };
  for (;;) {
    if (p >= end || buf[p] !== QUOTE) return undefined;
    const keyEnd = stringEnd(buf, p, end);
    if (keyEnd < 0) return undefined;
    const key = keyOf(buf, p + 1, keyEnd - 1);
    p = skipSpace(buf, keyEnd, end);
    if (p >= end || buf[p] !== COLON) return undefined;
    p = skipSpace(buf, p + 1, end);
    const valueEnd = skipValue(buf, p, end);
    if (valueEnd < 0) return undefined;
    if (key === Key.Method) {
      method = buf[p] === QUOTE ? stringValue(buf, p, valueEnd) : undefined;
    } else if (key === Key.Id) {
      const first = buf[p];
      id =
        first === QUOTE || first === 0x2d || (first >= 0x30 && first <= 0x39)
          ? idText(buf.toString('utf8', p, valueEnd))
          : undefined;
    } else if (key === Key.Response) response = true;
    p = skipSpace(buf, valueEnd, end);
    if (p >= end) return undefined;
    if (buf[p] === COMMA) {
      p = skipSpace(buf, p + 1, end);
      continue;
    }
    if (buf[p] !== CLOSE_BRACE) return undefined;
    return {
      response,
      ...(method === undefined ? {} : { method }),
      ...(id === undefined ? {} : { id }),
    };
  }
}

/**
 * One text per id: `7`, `7.0` and `7e0` are the same number, `"a"` and `"\u0061"` the same
 * string, as a JSON parser sees them. Plain texts (the usual ones) are returned as they are.
 */
export function idText(raw: string): string {
  if (/^(?:-?[1-9][0-9]{0,14}|0)$/.test(raw)) return raw;
  if (raw.charCodeAt(0) === QUOTE && !raw.includes('\\')) return raw;
  try {
    return JSON.stringify(JSON.parse(raw) as unknown);
  } catch {
    return raw;
  }
}

function skipSpace(buf: Buffer, p: number, end: number): number {
  while (p < end) {
    const c = buf[p];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return p;
    p += 1;
  }
  return p;
}

const enum Key {
  Other,
  Method,
  Id,
  Response,
}

/** Which key `buf[start, end)` is (the key's text between its quotes), by its bytes. */
function keyOf(buf: Buffer, start: number, end: number): Key {
  switch (end - start) {
    case 2:
      return buf[start] === 0x69 && buf[start + 1] === 0x64 ? Key.Id : Key.Other; // id
    case 5:
      return bytesAre(buf, start, ERROR) ? Key.Response : Key.Other;
    case 6:
      if (bytesAre(buf, start, METHOD)) return Key.Method;
      return bytesAre(buf, start, RESULT) ? Key.Response : Key.Other;
    default:
      return Key.Other;
  }
}

const ascii = (text: string): readonly number[] => [...text].map((c) => c.charCodeAt(0));
const METHOD = ascii('method');
const RESULT = ascii('result');
const ERROR = ascii('error');

function bytesAre(buf: Buffer, start: number, expected: readonly number[]): boolean {
  for (let i = 0; i < expected.length; i += 1) if (buf[start + i] !== expected[i]) return false;
  return true;
}

/** Strings shorter than this are crossed byte by byte: cheaper than a native search. */
const SHORT_STRING = 48;

/** The index after the closing quote of the string opening at `p`, or -1. */
function stringEnd(buf: Buffer, p: number, end: number): number {
  let q = p + 1;
  const short = Math.min(end, q + SHORT_STRING);
  while (q < short) {
    const c = buf[q];
    if (c === QUOTE) return q + 1;
    if (c === BACKSLASH) break;
    q += 1;
  }
  for (;;) {
    const close = buf.indexOf(QUOTE, q);
    if (close < 0 || close >= end) return -1;
    // Escaped when preceded by an odd number of backslashes.
    let slashes = 0;
    for (let b = close - 1; b > p && buf[b] === BACKSLASH; b -= 1) slashes += 1;
    if (slashes % 2 === 0) return close + 1;
    q = close + 1;
  }
}

function stringValue(buf: Buffer, p: number, valueEnd: number): string {
  const raw = buf.toString('utf8', p + 1, valueEnd - 1);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The index after the value starting at `p` (any JSON value), or -1 if it is cut short. */
function skipValue(buf: Buffer, p: number, end: number): number {
  if (p >= end) return -1;
  const first = buf[p];
  if (first === QUOTE) return stringEnd(buf, p, end);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number or a literal: up to the next delimiter.
    let q = p;
    while (q < end) {
      const c = buf[q];
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c <= 0x20) break;
      q += 1;
    }
    return q === p ? -1 : q;
  }
  let depth = 0;
  let q = p;
  while (q < end) {
    const c = buf[q];
    if (c === QUOTE) {
      q = stringEnd(buf, q, end);
      if (q < 0) return -1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth += 1;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return q + 1;
    }
    q += 1;
  }
  return -1;
}
