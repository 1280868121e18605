/**
 * JSONC text → document, with every problem located for humans.
 *
 * Guarantees:
 * - Comments and trailing commas are accepted (jsonc-parser). A text that is empty or holds only
 *   whitespace and comments is the empty document (`undefined`), not an error: that is what an
 *   editor leaves between truncate and write, and what a user means by "nothing here".
 * - Objects come back with a null prototype, so keys such as `__proto__` are ordinary data.
 * - Given the previous document of the same file, the new one shares every unchanged subtree
 *   with it (structural-sharing.ts): unchanged servers keep their objects from save to save.
 * - An edit inside one property value of the previous text re-parses that value only
 *   (incremental-parse.ts). Otherwise plain JSON without duplicate keys takes the engine's
 *   JSON.parse (strict-json.ts); the JSONC parser runs for JSONC extras, errors and duplicates.
 *   The syntax tree that locating needs is built on first use.
 * - A syntax error is reported once (the first one; later ones are almost always its echoes)
 *   with the file, a 1-based line and column, and a message that says how to fix it.
 * - A duplicate key is a warning, not an error: the last one wins, as with JSON.parse.
 * - locateIssue() places a validation issue (a path inside the document) at the key of the
 *   deepest node of that path that exists, so "mcpServers.fs.args: …" points at `"args"`.
 */
import {
  getNodeValue,
  parseTree,
  printParseErrorCode,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import { issueOffset, LineIndex, syntaxHint, type ConfigIssue } from '../api/index.js';
import { duplicateKeys } from './duplicate-keys.js';
import { JSONC_OPTIONS, remember, reparseEdit } from './incremental-parse.js';
import { outlineOfTree } from './outline.js';
import { parseStrictJson } from './strict-json.js';
import { shareStructure } from './structural-sharing.js';
import type { SourceError } from './types.js';

export { LineIndex };

export interface ParsedText {
  /** `undefined` for an empty text, or when the text does not parse. */
  readonly document: unknown;
  /** The syntax tree, for locating validation issues (built on first call); absent when empty. */
  readonly tree: () => Node | undefined;
  readonly errors: readonly SourceError[];
  readonly warnings: readonly SourceError[];
}

function located(file: string, index: LineIndex, offset: number, message: string): SourceError {
  const { line, column } = index.position(offset);
  return { file, line, column, message };
}

function duplicateKeyWarnings(file: string, index: LineIndex, node: Node): SourceError[] {
  return duplicateKeys(node).map(({ offset, path }) =>
    located(
      file,
      index,
      offset,
      `${path.join('.')}: duplicate key; the last one wins, remove the other`,
    ),
  );
}

/** A memo of the syntax tree of `body`, for texts that took the fast path. */
function lazyTree(body: string): () => Node | undefined {
  let tree: { node: Node | undefined } | undefined;
  return () => (tree ??= { node: parseTree(body, [], JSONC_OPTIONS) }).node;
}

/**
 * Parses JSONC text; `file` only labels the errors. `previous` is the last document of the same
 * file, whose unchanged subtrees the new document reuses.
 */
export function parseJsonc(file: string, text: string, previous?: unknown): ParsedText {
  // A UTF-8 BOM is not content; editors on Windows like to add one.
  const body = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const edit = reparseEdit(previous, body);
  if (edit !== undefined)
    return { document: edit.document, tree: lazyTree(body), errors: [], warnings: [] };
  const strict = parseStrictJson(body);
  if (strict !== undefined) {
    const document = shareStructure(previous, strict.value);
    remember(document, body, strict.outline);
    return { document, tree: lazyTree(body), errors: [], warnings: [] };
  }
  const parseErrors: ParseError[] = [];
  const tree = parseTree(body, parseErrors, JSONC_OPTIONS);
  const first = parseErrors[0];
  if (first !== undefined) {
    const code = printParseErrorCode(first.error);
    const hint = syntaxHint(code);
    const error = located(file, new LineIndex(body), first.offset, `syntax error: ${hint}`);
    return {
      document: undefined,
      tree: () => tree,
      errors: [{ ...error, kind: 'parse' }],
      warnings: [],
    };
  }
  if (tree === undefined)
    return { document: undefined, tree: () => tree, errors: [], warnings: [] };
  // getNodeValue's `any` is taken as unknown; sharing makes its objects null-prototype.
  const document = shareStructure(previous, getNodeValue(tree) as unknown);
  const warnings = duplicateKeyWarnings(file, new LineIndex(body), tree);
  if (warnings.length === 0) remember(document, body, outlineOfTree(tree));
  return { document, tree: () => tree, errors: [], warnings };
}

/**
 * Places a validation issue in the text. The issue's message already starts with its dotted
 * path, so only the position is added.
 */
export function locateIssue(
  file: string,
  text: string,
  tree: Node | undefined,
  issue: ConfigIssue,
  index: LineIndex = new LineIndex(text),
): SourceError {
  if (tree === undefined) return { file, line: 1, column: 1, message: issue.message };
  const offset = issueOffset(tree, issue.path);
  return located(file, index, offset, issue.message);
}

/** `file:line:column: message`, or `file: message` when the error is about the whole file. */
export function formatSourceError(error: SourceError): string {
  return error.line > 0
    ? `${error.file}:${error.line}:${error.column}: ${error.message}`
    : `${error.file}: ${error.message}`;
}
