/**
 * Where a JSONC text goes wrong, in words a user can act on: the one table of syntax-error
 * hints and the one way to turn offsets and document paths into lines, for every reader of a
 * config file (the informers' sources) and every writer of one (the server file's editor).
 *
 * Guarantees:
 * - `syntaxHint` says what a jsonc-parser error code means and, where obvious, what to do; an
 *   unknown code is given as itself. No hint quotes the text.
 * - `LineIndex` maps an offset to a 1-based line and column (columns count UTF-16 units).
 * - `issueOffset` places a path inside the document at the key of the deepest node of that path
 *   that exists, so "mcpServers.fs.args: …" points at `"args"` and a missing field at its object.
 */
import { findNodeAtLocation, type Node } from 'jsonc-parser';
import type { ConfigPath } from './schema.js';

/** What each syntax error means and, where obvious, what to do about it. */
const PARSE_HINTS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character; strings and property names need double quotes',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected:
    'expected a value (a "string", a number, true, false, null, an object or an array)',
  ColonExpected: 'expected ":" after the property name',
  CommaExpected: 'expected "," between two entries; add the missing comma',
  CloseBraceExpected: 'expected "}": an object is not closed',
  CloseBracketExpected: 'expected "]": an array is not closed',
  EndOfFileExpected:
    'unexpected text after the end of the document; the file must hold one JSON object',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'a /* comment is not closed; add "*/"',
  UnexpectedEndOfString: 'a string is not closed; add the closing double quote',
  UnexpectedEndOfNumber: 'a number is cut short',
  InvalidUnicode: 'invalid \\u escape; it needs four hex digits',
  InvalidEscapeCharacter:
    'invalid escape in a string; write a backslash as "\\\\" (Windows paths, regexes)',
  InvalidCharacter: 'invalid character in a string; write a newline as "\\n" and a tab as "\\t"',
};

/** The hint for a jsonc-parser error code (`printParseErrorCode`'s name). */
export function syntaxHint(code: string): string {
  return Object.hasOwn(PARSE_HINTS, code) ? PARSE_HINTS[code] : code;
}

/** Offsets → 1-based line and column, computed once per text. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
    }
  }

  position(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.starts[lo] ?? 0) + 1 };
  }
}

/** The offset of `path` in `tree` (see the module doc); 0 without a tree. */
export function issueOffset(tree: Node | undefined, path: ConfigPath): number {
  if (tree === undefined) return 0;
  let node: Node | undefined;
  // The deepest node of the path that exists: a missing field is reported at its object.
  for (let len = path.length; len >= 0 && node === undefined; len--) {
    node = findNodeAtLocation(tree, [...path.slice(0, len)]);
  }
  const target = node ?? tree;
  // Point at the key (`"args": …`) rather than at the value when the node is a property value.
  return target.parent?.type === 'property' ? target.parent.offset : target.offset;
}
