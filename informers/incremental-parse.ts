/**
 * Re-parsing only what an edit touched: a save that changes one server of ten thousand parses
 * that server's value, not the whole file.
 *
 * Guarantees:
 * - remember() records that a text parses, with no error and no warning, to a document (and
 *   where its properties sit, outline.ts). Kept in a weak map keyed by the document: forgotten
 *   with it, and never consulted for any other document.
 * - reparseEdit(previous, text) gives the document of `text`, or undefined when it cannot tell
 *   cheaply, and then the caller parses the whole text. A document it gives is what a full parse
 *   followed by shareStructure(previous, …) would give, because it only answers when:
 *   the edit (between the longest common prefix and suffix of the remembered text and the new
 *   one) lies inside one property value of the outline, and that value's new text parses on its
 *   own as exactly one value — no error, no duplicate key, no comment or space at either end.
 *   Then every token before and after it is the token it was, so the rest of the parse is too.
 *   A value longer than a quarter of the text is left to the full parse, which is faster then.
 * - The new document shares everything but the edited value's changed parts with `previous`
 *   (the containers on the way are fresh copies); an edit that changes no data (spacing, a
 *   comment inside the value) gives `previous` itself.
 */
import { getNodeValue, parseTree, type Node, type ParseError } from 'jsonc-parser';
import { duplicateKeys } from './duplicate-keys.js';
import { enclosingProperty, outlineOfTree, shiftedOutline, type Outline } from './outline.js';
import { shareStructure } from './structural-sharing.js';

/** The JSONC dialect of every parse; the incremental and the full parse must agree on it. */
export const JSONC_OPTIONS = {
  allowTrailingComma: true,
  disallowComments: false,
  allowEmptyContent: true,
} as const;

interface Memo {
  readonly text: string;
  readonly outline: Outline;
}

type JsonRecord = Record<string, unknown>;

const memos = new WeakMap<object, Memo>();

/** Records that `text` parses cleanly to `document`; only object documents with an outline. */
export function remember(document: unknown, text: string, outline: Outline | undefined): void {
  if (outline !== undefined && document !== null && typeof document === 'object')
    memos.set(document, { text, outline });
}

/** Compared in blocks first: equal substrings are checked natively, far faster than char by char. */
const BLOCK = 1024;

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i + BLOCK <= n && a.slice(i, i + BLOCK) === b.slice(i, i + BLOCK)) i += BLOCK;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, max: number): number {
  let i = 0;
  while (
    i + BLOCK <= max &&
    a.slice(a.length - i - BLOCK, a.length - i) === b.slice(b.length - i - BLOCK, b.length - i)
  )
    i += BLOCK;
  while (i < max && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

function withProperty(record: JsonRecord, key: string, value: unknown): JsonRecord {
  // Null prototype on both sides: "__proto__" is copied and set as an ordinary key, and for-in
  // sees own keys only (it also copies a large map twice as fast as Object.assign).
  const out = Object.create(null) as JsonRecord;
  for (const k in record) out[k] = k === key ? value : record[k];
  return out;
}

/** `outline` after the value of property `index` grew by `delta` and got `child` as outline. */
function editedOutline(
  outline: Outline,
  index: number,
  delta: number,
  child: Outline | undefined,
): Outline {
  const starts = outline.starts.slice();
  const ends = outline.ends.slice();
  const children = outline.children.slice();
  ends[index] = ends[index] + delta;
  children[index] = child;
  for (let k = index + 1; k < starts.length; k++) {
    starts[k] = starts[k] + delta;
    ends[k] = ends[k] + delta;
    const later = children[k];
    if (later !== undefined) children[k] = shiftedOutline(later, delta);
  }
  return { keys: outline.keys, starts, ends, children };
}

/** The one value `slice` holds, exactly and cleanly; undefined otherwise. */
function parseWholeValue(slice: string): Node | undefined {
  const errors: ParseError[] = [];
  const node = parseTree(slice, errors, JSONC_OPTIONS);
  if (errors.length > 0 || node === undefined) return undefined;
  if (node.offset !== 0 || node.length !== slice.length || duplicateKeys(node).length > 0)
    return undefined;
  return node;
}

export function reparseEdit(previous: unknown, text: string): { document: unknown } | undefined {
  if (previous === null || typeof previous !== 'object') return undefined;
  const memo = memos.get(previous);
  if (memo === undefined) return undefined;
  const old = memo.text;
  if (old === text) return { document: previous };
  const from = commonPrefix(old, text);
  const to = old.length - commonSuffix(old, text, Math.min(old.length, text.length) - from);
  const delta = text.length - old.length;

  const top = memo.outline;
  const i = enclosingProperty(top, from, to);
  if (i === -1) return undefined;
  const inner = top.children[i];
  const j = inner === undefined ? -1 : enclosingProperty(inner, from, to);
  const level = inner !== undefined && j !== -1 ? inner : top;
  const index = level === top ? i : j;
  const start = level.starts[index];
  const end = level.ends[index] + delta;
  // A value that is much of the file is parsed faster with the whole text by JSON.parse than
  // alone by the JSONC parser: this path is for small edits of big files.
  if ((end - start) * 4 > text.length) return undefined;
  const node = parseWholeValue(text.slice(start, end));
  if (node === undefined) return undefined;

  const doc = previous as JsonRecord;
  const key = top.keys[i];
  let document: unknown;
  let outline: Outline;
  if (level === top) {
    const value = shareStructure(doc[key], getNodeValue(node));
    document = value === doc[key] ? previous : withProperty(doc, key, value);
    const own = outlineOfTree(node, 1);
    outline = editedOutline(top, i, delta, own && shiftedOutline(own, start));
  } else {
    const parent = doc[key] as JsonRecord;
    const innerKey = inner?.keys[j] as string;
    const value = shareStructure(parent[innerKey], getNodeValue(node));
    document =
      value === parent[innerKey]
        ? previous
        : withProperty(doc, key, withProperty(parent, innerKey, value));
    outline = editedOutline(top, i, delta, editedOutline(level, j, delta, undefined));
  }
  remember(document, text, outline);
  return { document };
}
