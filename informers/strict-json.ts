/**
 * The fast path of parsing: most config files are plain JSON, which the engine's own JSON.parse
 * reads several times faster than a JSONC parser that builds a syntax tree.
 *
 * Guarantees:
 * - parseStrictJson() returns the value only when the text is strict JSON *and* no object in it
 *   repeats a key. Anything else (comments, trailing commas, syntax errors, empty text,
 *   duplicate keys) returns `undefined`, so the caller takes the JSONC path, which accepts the
 *   JSONC extras and locates errors and duplicate keys for humans.
 * - The value is JSON.parse's: objects have the ordinary prototype (with `"__proto__"` as an own
 *   data property, never the prototype). Callers that index by user-given names must copy it
 *   into null-prototype objects first (structural-sharing.ts does).
 * - With the value comes the text's outline (outline.ts), from the same single scan.
 *
 * Duplicate keys are found without a tree: JSON.parse keeps one property per distinct key, so
 * the text holds a duplicate exactly when it has more property names than the parsed objects
 * have own keys. Counting names in strict JSON is a scan from quote to quote.
 */
import { emptyOutline, type Outline } from './outline.js';

/** Own keys of every object in a JSON.parse result. */
function parsedKeyCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += parsedKeyCount(item);
    return count;
  }
  const record = value as Record<string, unknown>;
  // for-in allocates no key array; JSON.parse objects inherit nothing enumerable.
  for (const key in record) count += 1 + parsedKeyCount(record[key]);
  return count;
}

const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

/** Offset of the quote that closes the string opened at `open` (the text is valid JSON). */
function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  for (;;) {
    // A quote preceded by an odd number of backslashes is escaped, not the end.
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
}

/**
 * One pass over a text that JSON.parse accepted: how many property names it has, and its
 * outline. Outside strings strict JSON has no `"`, so quotes pair up as string literals (found
 * with indexOf, not char by char); a literal followed by `:` is a property name. Written as one
 * tight loop: it runs over every byte of a large file on each full parse.
 */
function scanStrictJson(text: string): { keys: number; outline: Outline | undefined } {
  const n = text.length;
  let keys = 0;
  let outline: Outline | undefined;
  // The outline of each open object or array (undefined past the second level), innermost last.
  const open: (Outline | undefined)[] = [];
  let current: Outline | undefined;
  let i = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    // Outside strings valid JSON has no other character at or below the space.
    if (code <= 0x20 || code === COMMA) {
      i++;
      continue;
    }
    let end: number;
    if (code === QUOTE) {
      const close = closingQuote(text, i);
      let next = close + 1;
      while (next < n && text.charCodeAt(next) <= 0x20) next++;
      if (text.charCodeAt(next) === COLON) {
        keys++;
        if (current !== undefined) {
          const raw = text.slice(i + 1, close);
          current.keys.push(raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw);
          current.starts.push(-1);
          current.ends.push(-1);
          current.children.push(undefined);
        }
        i = next + 1;
        continue;
      }
      if (current !== undefined && current.starts[current.starts.length - 1] === -1)
        current.starts[current.starts.length - 1] = i;
      end = close + 1;
    } else if (code === 0x7b || code === 0x5b) {
      let own: Outline | undefined;
      if (current !== undefined) {
        const last = current.starts.length - 1;
        if (current.starts[last] === -1) current.starts[last] = i;
        // Objects directly under the top object get an outline of their own.
        if (code === 0x7b && open.length === 1) own = current.children[last] = emptyOutline();
      } else if (code === 0x7b && open.length === 0) own = outline = emptyOutline();
      open.push(current);
      current = own;
      i++;
      continue;
    } else if (code === 0x7d || code === 0x5d) {
      current = open.pop();
      end = i + 1;
    } else {
      // A number or a literal: up to the next delimiter.
      if (current !== undefined && current.starts[current.starts.length - 1] === -1)
        current.starts[current.starts.length - 1] = i;
      end = i + 1;
      while (end < n) {
        const c = text.charCodeAt(end);
        if (c <= 0x20 || c === COMMA || c === 0x7d || c === 0x5d) break;
        end++;
      }
    }
    // A value ended at `end`: it is the newest property's value of the innermost frame.
    if (current !== undefined && current.ends.length > 0)
      current.ends[current.ends.length - 1] = end;
    i = end;
  }
  return { keys, outline };
}

/**
 * Strict JSON without duplicate keys → its value and outline; anything else → undefined (the
 * caller takes the JSONC path).
 */
export function parseStrictJson(
  text: string,
): { readonly value: unknown; readonly outline: Outline | undefined } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const scanned = scanStrictJson(text);
  if (scanned.keys !== parsedKeyCount(value)) return undefined;
  return { value, outline: scanned.outline };
}
