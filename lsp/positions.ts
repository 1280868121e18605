/**
 * Positions as an editor shows them ↔ positions as a language server counts them.
 *
 * An agent says "line 12, column 5" the way an editor shows it: both 1-based, the column in
 * user-perceived characters, taken here as Unicode code points (an emoji is one column, as is
 * `é` written as one code point). LSP counts lines from 0 and characters in the position
 * encoding the server chose at `initialize` (`utf-16` unless both sides agreed on another):
 * UTF-16 code units by default, bytes for `utf-8`, code points for `utf-32`.
 *
 * Guarantees (pure functions, no I/O):
 * - Lines are split as LSP splits them: at `\r\n`, `\r` and `\n`; a terminator is never part
 *   of a line, so a CRLF file has the same columns as its LF twin.
 * - `toLspPosition` and `fromLspPosition` are inverse on every code-point boundary of every
 *   line, in every encoding.
 * - Past the end is clamped, as LSP itself does: a column past its line's end means the end of
 *   the line; a line past the last means the end of the text. Nothing throws on a position;
 *   callers that must refuse one (a request about line 500 of a 20-line file) check `lineCount`.
 * - An LSP character inside a code point (half of a surrogate pair in UTF-16, a continuation
 *   byte in UTF-8) lands on that code point's column: it is never split, never skipped.
 */

/** The position encodings of LSP 3.17 (`PositionEncodingKind`). */
export type PositionEncoding = 'utf-16' | 'utf-8' | 'utf-32';

export const POSITION_ENCODINGS: readonly PositionEncoding[] = ['utf-16', 'utf-8', 'utf-32'];

/** 1-based line and column, the column in code points: what an editor shows. */
export interface EditorPosition {
  readonly line: number;
  readonly column: number;
}

/** A 1-based range as an editor shows it; the end is exclusive, like LSP's. */
export interface EditorRange {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

/** LSP's 0-based position, `character` in the negotiated encoding's units. */
export interface LspPosition {
  readonly line: number;
  readonly character: number;
}

export interface LspRange {
  readonly start: LspPosition;
  readonly end: LspPosition;
}

/** The encoding the server chose (`InitializeResult.capabilities.positionEncoding`). */
export function encodingOf(chosen: unknown): PositionEncoding {
  return POSITION_ENCODINGS.find((e) => e === chosen) ?? 'utf-16';
}

/** A text split into lines once, for many conversions. */
export class TextLines {
  readonly #lines: readonly string[];

  constructor(text: string) {
    this.#lines = text.split(/\r\n|\r|\n/);
  }

  /** At least 1: an empty text is one empty line. */
  get lineCount(): number {
    return this.#lines.length;
  }

  /** The 0-based line's text without its terminator ('' past the end). */
  line(index: number): string {
    return this.#lines[index] ?? '';
  }
}

/** How many units of `encoding` the code point takes. */
function unitsOf(codePoint: number, encoding: PositionEncoding): number {
  if (encoding === 'utf-32') return 1;
  if (encoding === 'utf-16') return codePoint > 0xffff ? 2 : 1;
  // UTF-8. A lone surrogate is written as U+FFFD, three bytes, like every other BMP code point
  // from U+0800 on.
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/** The line index a 1-based editor line or an LSP line lands on, and whether it was past the end. */
function clampLine(lines: TextLines, index: number): { index: number; past: boolean } {
  const last = lines.lineCount - 1;
  if (index > last) return { index: last, past: true };
  return { index: Math.max(0, index), past: false };
}

/** Editor (1-based, code points) → LSP (0-based, `encoding` units). */
export function toLspPosition(
  lines: TextLines,
  position: EditorPosition,
  encoding: PositionEncoding,
): LspPosition {
  const { index, past } = clampLine(lines, Math.trunc(position.line) - 1);
  const text = lines.line(index);
  // Past the last line: the end of the text.
  const wanted = past ? Infinity : Math.max(0, Math.trunc(position.column) - 1);
  let character = 0;
  let seen = 0;
  for (const ch of text) {
    if (seen >= wanted) break;
    character += unitsOf(ch.codePointAt(0) ?? 0, encoding);
    seen += 1;
  }
  return { line: index, character };
}

/** LSP (0-based, `encoding` units) → editor (1-based, code points). */
export function fromLspPosition(
  lines: TextLines,
  position: LspPosition,
  encoding: PositionEncoding,
): EditorPosition {
  const { index, past } = clampLine(lines, Math.trunc(position.line));
  const text = lines.line(index);
  const wanted = past ? Infinity : Math.max(0, Math.trunc(position.character));
  let units = 0;
  let column = 1;
  for (const ch of text) {
    // A character inside this code point lands on it: stop before counting it.
    if (units + unitsOf(ch.codePointAt(0) ?? 0, encoding) > wanted) break;
    units += unitsOf(ch.codePointAt(0) ?? 0, encoding);
    column += 1;
  }
  return { line: index + 1, column };
}

/** An LSP range as an editor shows it. */
export function fromLspRange(
  lines: TextLines,
  range: LspRange,
  encoding: PositionEncoding,
): EditorRange {
  const start = fromLspPosition(lines, range.start, encoding);
  const end = fromLspPosition(lines, range.end, encoding);
  return { line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
}
