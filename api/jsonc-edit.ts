/**
 * Setting and removing one value of a JSONC text by its path, touching nothing else: the text
 * edits of the server file's editor (server-file-edit.ts) and of `mcpctl setup`'s.
 *
 * Why not jsonc-parser's `modify` with its formatting: it formats whole lines around the edit,
 * so a sibling written on one line (`"a": { "command": "a" },`) is rewritten, and removing the
 * last member takes the previous member's line comment with it. Here the edits are made of
 * jsonc-parser's tree and scanner, and only the bytes of the edit change.
 *
 * Guarantees:
 * - Every byte outside the edited member is kept: comments (also those on sibling lines),
 *   blank lines, key order, the indentation and line breaks of everything else.
 * - A set of an existing path replaces its value only (the key and what follows stay); a new
 *   member goes after the object's last member, on a line of its own indented as its siblings
 *   are (else one step in from the object's line), with the objects missing on the way made.
 * - New values are printed as JSON with the text's indentation (`formattingOf`: tabs or its
 *   number of spaces, 2 for a new text), nested lines indented from their member's line.
 * - A removal takes the member, its comma, the line comment after it on its line, and its line
 *   when the member had the line alone; removing the last member also takes the comma before
 *   it, so a strict JSON file stays strict JSON (other agents read these files as JSON).
 * - The caller checks that every container on the path is an object (a path through an array
 *   or a scalar is not handled here).
 */
import { createScanner, findNodeAtLocation, parseTree, SyntaxKind, type Node } from 'jsonc-parser';
import type { ConfigPath } from './schema.js';

export interface Indentation {
  /** One level: a tab or some spaces. */
  readonly unit: string;
}

/** The text's indentation, guessed from its first indented line (2 spaces when none). */
export function formattingOf(text: string): Indentation {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { unit: '\t' };
  return { unit: ' '.repeat(indent?.length ?? 2) };
}

const JSONC = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true };

/** The start of the line holding `offset`. */
function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** True when only spaces and tabs stand between the line's start and `offset`. */
function firstOnLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

/** `value` as JSON, its nested lines indented from `indent`. */
function printed(value: unknown, indent: string, format: Indentation): string {
  return JSON.stringify(value, null, format.unit).replace(/\n/g, `\n${indent}`);
}

/** `value` nested under `keys` ({ k1: { k2: value } }). */
function nested(keys: ConfigPath, value: unknown): unknown {
  let out = value;
  for (let i = keys.length - 1; i >= 0; i--) out = { [String(keys[i])]: out };
  return out;
}

function splice(text: string, offset: number, length: number, content: string): string {
  return text.slice(0, offset) + content + text.slice(offset + length);
}

/** The end of the line comment that follows `offset` on its line, or undefined if none. */
function lineCommentEnd(text: string, offset: number): number | undefined {
  const rest = /^[ \t]*\/\/[^\n]*/.exec(text.slice(offset));
  return rest === null ? undefined : offset + rest[0].length;
}

/**
 * Inserts `member` after the last member, which ends at `lastEnd`: below it, after its comma and
 * its line comment, so a comment stays on the line of the member it is about. A trailing comma
 * (the last member has one) is kept as the file's style: the new member gets one too.
 */
function afterLast(text: string, lastEnd: number, indent: string, member: string): string {
  const comma = commaAfter(text, lastEnd);
  if (comma !== undefined && !text.slice(lastEnd, comma.start).includes('\n')) {
    const at = lineCommentEnd(text, comma.end) ?? comma.end;
    return splice(text, at, 0, `\n${indent}${member},`);
  }
  const commentEnd = lineCommentEnd(text, lastEnd);
  if (commentEnd === undefined) return splice(text, lastEnd, 0, `,\n${indent}${member}`);
  // Later offset first, so the earlier one stays right.
  return splice(splice(text, commentEnd, 0, `\n${indent}${member}`), lastEnd, 0, ',');
}

/** Adds the member `key: value` to the object `parent`. */
function addMember(
  text: string,
  parent: Node,
  key: string,
  value: unknown,
  format: Indentation,
): string {
  const members = parent.children ?? [];
  const first = members[0];
  const last = members[members.length - 1];
  const outer = lineIndent(text, parent.offset);
  const indent =
    first !== undefined && firstOnLine(text, first.offset)
      ? lineIndent(text, first.offset)
      : outer + format.unit;
  const member = `${JSON.stringify(key)}: ${printed(value, indent, format)}`;
  if (last !== undefined) return afterLast(text, last.offset + last.length, indent, member);
  const inner = text.slice(parent.offset + 1, parent.offset + parent.length - 1);
  // An empty object: its blank inside is replaced, a comment in it kept before the member.
  if (/^\s*$/.test(inner))
    return splice(text, parent.offset + 1, inner.length, `\n${indent}${member}\n${outer}`);
  return splice(text, parent.offset + 1, 0, `\n${indent}${member}`);
}

/** The text with `value` at `path` (see the module doc). */
export function setValue(
  text: string,
  path: ConfigPath,
  value: unknown,
  format: Indentation = formattingOf(text),
): string {
  const tree = parseTree(text, [], JSONC);
  if (tree === undefined) {
    // No document yet (an empty file, or one of comments): the document goes after them.
    const before = text === '' || text.endsWith('\n') ? text : `${text}\n`;
    return `${before}${printed(nested(path, value), '', format)}\n`;
  }
  const existing = findNodeAtLocation(tree, [...path]);
  if (existing !== undefined)
    return splice(
      text,
      existing.offset,
      existing.length,
      printed(value, lineIndent(text, existing.offset), format),
    );
  // The deepest object of the path that exists; what is missing below it is made.
  let depth = path.length - 1;
  let parent = findNodeAtLocation(tree, [...path.slice(0, depth)]);
  while (parent === undefined && depth > 0) {
    depth -= 1;
    parent = depth === 0 ? tree : findNodeAtLocation(tree, [...path.slice(0, depth)]);
  }
  if (parent === undefined || parent.type !== 'object')
    throw new Error(`setValue: ${path.slice(0, depth).join('.')} is not an object`);
  return addMember(text, parent, String(path[depth]), nested(path.slice(depth + 1), value), format);
}

/** Offset just past the comma after `offset` (skipping blanks and comments), or undefined. */
function commaAfter(text: string, offset: number): { start: number; end: number } | undefined {
  const scanner = createScanner(text.slice(offset), false);
  for (;;) {
    const kind = scanner.scan();
    if (kind === SyntaxKind.CommaToken) {
      const start = offset + scanner.getTokenOffset();
      return { start, end: start + 1 };
    }
    if (
      kind !== SyntaxKind.Trivia &&
      kind !== SyntaxKind.LineBreakTrivia &&
      kind !== SyntaxKind.LineCommentTrivia &&
      kind !== SyntaxKind.BlockCommentTrivia
    )
      return undefined;
  }
}

/** The text without the value at `path`; the same text when there is none. */
export function removeValue(text: string, path: ConfigPath): string {
  const tree = parseTree(text, [], JSONC);
  if (tree === undefined || path.length === 0) return text;
  const value = findNodeAtLocation(tree, [...path]);
  const member = value?.parent;
  if (value === undefined || member?.type !== 'property') return text;
  const siblings = member.parent?.children ?? [];
  const previous = siblings[siblings.indexOf(member) - 1];
  const memberEnd = member.offset + member.length;
  // The comma after it: there when another member follows, or as a trailing comma.
  const comma = commaAfter(text, memberEnd);
  const commaOnLine = comma !== undefined && !text.slice(memberEnd, comma.start).includes('\n');
  let end = commaOnLine ? comma.end : memberEnd;
  let start = member.offset;
  // The member has its line alone (blanks and its line comment aside): the line goes.
  const tail = /^[ \t]*(\/\/[^\n]*)?(\r?\n|$)/.exec(text.slice(end));
  if (tail !== null && firstOnLine(text, member.offset)) {
    start = lineStart(text, member.offset);
    end += tail[0].length;
  } else {
    end += /^[ \t]*/.exec(text.slice(end))?.[0].length ?? 0;
  }
  // Edits from the end backwards, so earlier offsets stay right.
  let out = text;
  if (comma !== undefined && !commaOnLine) out = splice(out, comma.start, 1, '');
  out = splice(out, start, end - start, '');
  if (comma === undefined && previous !== undefined) {
    // The last member went: the comma before it would now be a trailing one.
    const before = commaAfter(out, previous.offset + previous.length);
    if (before !== undefined) out = splice(out, before.start, 1, '');
  }
  return out;
}
