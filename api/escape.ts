/**
 * Text from a config file or a server, made safe to show: the one table of characters that are
 * not shown as themselves, and the one way to make them visible. Every surface uses it: the CLI
 * (cli/output/escape.ts and its terminal guard), the gateway's questions to the agent's user
 * (approval, sign-in), the approval disclosure, validation messages quoting a name.
 *
 * Guarantees:
 * - UNSHOWN is every control (C0 with tab and newline, DEL, C1: Unicode `Cc`), every format
 *   character (`Cf`: bidi embeddings, overrides and isolates U+202A–202E, U+2066–2069, the marks
 *   U+200E/200F and U+061C, the zero-width U+200B–200D, U+2060 and U+FEFF, invisible operators,
 *   interlinear annotations, the soft hyphen), the line and paragraph separators U+2028/2029
 *   and the whole tag block U+E0000–E007F (assigned or not). Those can drive a terminal, reorder
 *   what is shown (a right-to-left override turns `gpj‮exe.txt` around), or hide text a reader
 *   never sees (tags and zero-width characters smuggle words to a model).
 * - `escapeField` shows each of them as an escape: `\n`, `\r`, `\t`; `\xHH` below U+0100 (ESC
 *   `\x1b`, the 8-bit CSI `\x9b`); `\uHHHH` in the BMP; `\u{HHHHH}` above it. Every other
 *   character is unchanged. `escapeText` does the same but keeps newlines and tabs (whole texts).
 * - `quoted` is a value JSON-quoted, then escaped: quotes and line breaks in a file cannot make
 *   one value read as two, and nothing unshown is left raw.
 * - `jsonEscaped` turns a JSON text into one without any UNSHOWN character raw, still parsing
 *   back to the same value (`\uHHHH`, astral characters as their surrogate pair).
 */

/** The table (see the module doc), as a character class body for a `u` regular expression. */
const UNSHOWN_CLASS = '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\u{E0000}-\\u{E007F}';

/** One character of the table. */
export const UNSHOWN = new RegExp(`[${UNSHOWN_CLASS}]`, 'u');
const UNSHOWN_ALL = new RegExp(`[${UNSHOWN_CLASS}]`, 'gu');
const UNSHOWN_BUT_LAYOUT = new RegExp(`(?![\\n\\t])[${UNSHOWN_CLASS}]`, 'gu');
/** What JSON.stringify leaves raw of the table: everything but C0, which it escapes itself. */
const JSON_RAW = new RegExp(`(?![\\u0000-\\u001f])[${UNSHOWN_CLASS}]`, 'gu');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** How one character of the table is shown. */
function visible(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const cp = c.codePointAt(0) ?? 0;
  if (cp < 0x100) return `\\x${hex(cp, 2)}`;
  return cp <= 0xffff ? `\\u${hex(cp, 4)}` : `\\u{${hex(cp, 5)}}`;
}

/** True when `text` holds a character of the table. */
export function hasUnshown(text: string): boolean {
  return UNSHOWN.test(text);
}

/** A single-line value with every character of the table shown as an escape. */
export function escapeField(text: string): string {
  return text.replace(UNSHOWN_ALL, visible);
}

/** A whole text (several lines): as escapeField, keeping newlines and tabs. */
export function escapeText(text: string): string {
  return text.replace(UNSHOWN_BUT_LAYOUT, visible);
}

/** `text` as a JSON string literal, escaped (see the module doc). */
export function quoted(text: string): string {
  return escapeField(JSON.stringify(text));
}

/** JSON's own escape of one character (both halves of a surrogate pair above the BMP). */
function jsonEscape(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i += 1) out += `\\u${hex(c.charCodeAt(i), 4)}`;
  return out;
}

/** A JSON text with no character of the table raw, parsing to the same value. */
export function jsonEscaped(jsonText: string): string {
  return jsonText.replace(JSON_RAW, jsonEscape);
}
