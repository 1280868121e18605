/**
 * An agent's JSON or JSONC config as text: parsed to read it, edited in place to change it.
 *
 * Guarantees:
 * - `parseConfig` accepts what the agents accept (comments, trailing commas) and refuses any
 *   syntax error with `file:line:column: what`, so a file setup does not understand is named
 *   and left alone.
 * - `setAt` / `removeAt` change only the member they name (api/jsonc-edit.ts, the server
 *   file's editor's): comments, key order, blank lines and everything else stay byte for byte.
 *   `appendAt` adds names to a list (jsonc-parser `modify`, an array insertion), its other
 *   elements untouched.
 * - Paths go through objects only: `valueAt` answers undefined through anything else, and the
 *   agent modules check a container is an object before they edit under it.
 */
import {
  applyEdits,
  modify,
  parse,
  printParseErrorCode,
  type FormattingOptions,
  type ParseError,
} from 'jsonc-parser';
import { isObject, removeValue, setValue } from '../../api/index.js';

export type Parsed =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

/** Line and column (1-based) of `offset` in `text`. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `${line}:${column}`;
}

export function parseConfig(file: string, text: string): Parsed {
  const errors: ParseError[] = [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const value: unknown = parse(body, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined)
    return {
      ok: false,
      problem: `${file}:${lineColumn(body, first.offset)}: not valid JSON (${printParseErrorCode(first.error)})`,
    };
  return { ok: true, value: body.trim() === '' ? {} : value };
}

/** The value at `path` through objects (own keys only), or undefined. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** How the text indents and ends its lines (for jsonc-parser's array insertion). */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

/** The text with `value` at `path` (made, or replaced): api/jsonc-edit.ts, every other byte kept. */
export function setAt(text: string, path: readonly string[], value: unknown): string {
  return setValue(text, path, value);
}

/** The text without the member at `path`; the same text when there is none. */
export function removeAt(text: string, path: readonly string[]): string {
  return removeValue(text, path);
}

/** The text with `values` appended to the array at `path` (its other elements untouched). */
export function appendAt(
  text: string,
  path: readonly string[],
  length: number,
  values: readonly unknown[],
): string {
  let next = text;
  values.forEach((value, i) => {
    const edits = modify(next, [...path, length + i], value, {
      formattingOptions: formattingOf(next),
      isArrayInsertion: true,
    });
    next = applyEdits(next, edits);
  });
  return next;
}
