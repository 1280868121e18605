/**
 * The server file's editor: read a `.mcp.json`-shaped file (mcpctl's user server file, a
 * project's `.mcp.json`), add, replace or remove entries, and write it back, for
 * `mcpctl add`/`remove` and `mcpctl setup`.
 *
 * Guarantees:
 * - Edits are made on the file's text (jsonc-edit.ts): comments, formatting, key order and
 *   everything the edit does not touch stay byte for byte. The indentation of a new entry
 *   follows the file's (tabs or its number of spaces; 2 for a new file).
 * - Nothing is written unless the edit changed the text (an edit that changes nothing, such as
 *   adding the identical entry again, leaves the file and its mtime alone), and the result
 *   must parse and validate as a server file (server-file.ts; with `shape: 'mcpJson'` only its
 *   `mcpServers`, as a project's or an agent's `.mcp.json`); otherwise a `ServerFileError`
 *   names the file, line and column, what is wrong and what to do, and nothing is changed.
 * - A file that does not parse is never written; a syntax error is reported as the informers
 *   report it (jsonc-location.ts), with "nothing was changed".
 * - A symbolic link, a FIFO, a directory or any other non-regular file where the file should
 *   be is refused before it is read, and said so; a file over DEFAULT_MAX_BYTES is refused
 *   unread. No message quotes a value of the file (only names and keys, escaped).
 * - Writes are atomic (api/private-file.ts `replaceFile`: a reader sees the old file or the
 *   new). The user's file (`private`, the default) is written 0600 in a folder made 0700 when
 *   missing: it may hold tokens. Otherwise (a project's `.mcp.json`) the file keeps its mode,
 *   0644 when new, and its folder must exist.
 * - A concurrent writer is not overwritten unseen: just before writing, the file is read
 *   again, and when it changed since the edit began, the edit runs again on the new text (a
 *   few times, then it gives up with an error). The window left is the rename itself.
 */
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { isObject } from './is-object.js';
import { formattingOf, removeValue, setValue } from './jsonc-edit.js';
import { issueOffset, LineIndex, syntaxHint } from './jsonc-location.js';
import { messageOf } from './message-of.js';
import { DEFAULT_MAX_BYTES, readFileCapped } from './read-file.js';
import { replaceFile } from './private-file.js';
import { describeType } from './redact.js';
import { formatPath, type ConfigPath } from './schema.js';
import {
  validateServerFileDocument,
  type ServerFileContent,
  type ServerFileValidation,
} from './server-file.js';

/** What went wrong, for a caller that words its own hint (add's `--force`). */
export type ServerFileProblem =
  | 'link'
  | 'notRegular'
  | 'tooLarge'
  | 'unreadable'
  | 'syntax'
  | 'invalid'
  | 'badName'
  | 'exists'
  | 'busy'
  | 'unwritable';

/** A refusal: `message` names the file (and line), what is wrong and what to do. */
export class ServerFileError extends Error {
  override readonly name = 'ServerFileError';
  constructor(
    readonly file: string,
    readonly problem: ServerFileProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The end of every refusal: the file is as it was. */
export const NOTHING_CHANGED = 'nothing was changed';

/** The JSONC dialect of every read (the informers' one). */
const JSONC = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true };

const BOM = '\ufeff';

/** The file as found: its text (without a BOM), whether it had one, its mode. */
interface Loaded {
  readonly file: string;
  readonly exists: boolean;
  readonly text: string;
  readonly bom: boolean;
  /** Permission bits of the existing file. */
  readonly mode: number | undefined;
}

/** What a non-regular file is, in words. */
function kindWords(stats: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }) {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  return 'a device or special file';
}

async function load(file: string): Promise<Loaded> {
  const missing: Loaded = { file, exists: false, text: '', bom: false, mode: undefined };
  let stats;
  try {
    stats = await lstat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return missing;
    throw new ServerFileError(file, 'unreadable', `${file}: cannot be read: ${messageOf(err)}`);
  }
  if (stats.isSymbolicLink())
    throw new ServerFileError(
      file,
      'link',
      `${file}: is a symbolic link; mcpctl neither reads nor writes a server file through a link (it could point at any file); replace the link with a regular file (or remove it); ${NOTHING_CHANGED}`,
    );
  if (!stats.isFile())
    throw new ServerFileError(
      file,
      'notRegular',
      `${file}: is ${kindWords(stats)}, not a regular file; replace it with a regular file (or remove it); ${NOTHING_CHANGED}`,
    );
  const read = await readFileCapped(file, DEFAULT_MAX_BYTES);
  switch (read.kind) {
    case 'missing':
      return missing;
    case 'tooLarge':
      throw new ServerFileError(
        file,
        'tooLarge',
        `${file}: is ${read.size} bytes, more than the ${DEFAULT_MAX_BYTES} a server file may hold; it is not a server file mcpctl wrote, move it away; ${NOTHING_CHANGED}`,
      );
    case 'error':
      // A FIFO swapped in after the check above is refused here, unread.
      throw new ServerFileError(file, 'unreadable', `${file}: ${read.message}; ${NOTHING_CHANGED}`);
    case 'ok': {
      const bom = read.text.startsWith(BOM);
      const text = bom ? read.text.slice(1) : read.text;
      return { file, exists: true, text, bom, mode: stats.mode & 0o7777 };
    }
  }
}

/** A parsed node as a value whose objects have a null prototype (`__proto__` is a name). */
function valueOf(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const out = Object.create(null) as Record<string, unknown>;
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (key !== undefined && value !== undefined) out[String(key.value)] = valueOf(value);
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map(valueOf);
    default:
      return node.value as unknown;
  }
}

interface Parsed {
  readonly document: unknown;
  readonly tree: Node | undefined;
}

/** `file:line:column` of `offset` in `text`. */
function at(file: string, text: string, offset: number): string {
  const { line, column } = new LineIndex(text).position(offset);
  return `${file}:${line}:${column}`;
}

/** The text parsed, or a ServerFileError at its first syntax error. */
function parse(file: string, text: string): Parsed {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, JSONC);
  const first = errors[0];
  if (first !== undefined)
    throw new ServerFileError(
      file,
      'syntax',
      `${at(file, text, first.offset)}: syntax error: ${syntaxHint(printParseErrorCode(first.error))}; fix the file first, ${NOTHING_CHANGED}`,
    );
  return { document: tree === undefined ? undefined : valueOf(tree), tree };
}

/** The text validated, or a ServerFileError at its first error. */
/**
 * What a file is validated as: mcpctl's server file (`mcpServers` and `projects`), or a plain
 * `.mcp.json` (a project's, an agent's: only `mcpServers` is read, every other key is theirs).
 */
export type ServerFileShape = 'serverFile' | 'mcpJson';

function validateAs(shape: ServerFileShape, document: unknown): ServerFileValidation {
  if (shape === 'serverFile' || !isObject(document)) return validateServerFileDocument(document);
  return validateServerFileDocument({ mcpServers: document.mcpServers });
}

function validated(
  file: string,
  text: string,
  parsed: Parsed,
  shape: ServerFileShape,
): ServerFileValidation {
  const v = validateAs(shape, parsed.document);
  const first = v.errors[0];
  if (first !== undefined)
    throw new ServerFileError(
      file,
      'invalid',
      `${at(file, text, issueOffset(parsed.tree, first.path))}: ${first.message}; ${NOTHING_CHANGED}`,
    );
  return v;
}

/** What an edit sees and does: the document as it is now, and edits by path. */
export interface ServerFileEditor {
  readonly file: string;
  /** True when the file existed when the edit began. */
  readonly exists: boolean;
  /** The text now (after the edits so far), without a BOM. */
  readonly text: string;
  /** The value at `path` now (objects with a null prototype); undefined when absent. */
  valueAt(path: ConfigPath): unknown;
  /** Sets the value at `path`, making the objects on the way; each one met must be an object. */
  set(path: ConfigPath, value: unknown): void;
  /** Removes the value at `path`; nothing when absent. */
  remove(path: ConfigPath): void;
}

function editorOf(loaded: Loaded, parsed: Parsed): ServerFileEditor {
  const { file } = loaded;
  let text = loaded.text;
  let current = parsed;
  const format = formattingOf(text);

  function valueAt(where: ConfigPath): unknown {
    let value = current.document;
    for (const key of where) {
      if (typeof key === 'number') value = Array.isArray(value) ? value[key] : undefined;
      else value = isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
      if (value === undefined) return undefined;
    }
    return value;
  }

  /** Refuses a path through something that is not an object (modify would do odd things). */
  function checkContainers(where: ConfigPath): void {
    for (let len = 0; len < where.length; len++) {
      const prefix = where.slice(0, len);
      const value = len === 0 ? current.document : valueAt(prefix);
      if (value === undefined) return;
      if (!isObject(value)) {
        const place = len === 0 ? 'the top of the file' : formatPath(prefix);
        throw new ServerFileError(
          file,
          'invalid',
          `${at(file, text, issueOffset(current.tree, prefix))}: ${place}: expected an object, got ${describeType(value)}; fix the file by hand, ${NOTHING_CHANGED}`,
        );
      }
    }
  }

  function apply(next: string): void {
    text = next;
    current = parse(file, text);
  }

  return {
    file,
    exists: loaded.exists,
    get text() {
      return text;
    },
    valueAt,
    set(where, value) {
      checkContainers(where);
      apply(setValue(text, where, value, format));
    },
    remove(where) {
      if (valueAt(where) === undefined) return;
      checkContainers(where);
      apply(removeValue(text, where));
    },
  };
}

export interface ShapeOptions {
  /** Default `serverFile`. */
  readonly shape?: ServerFileShape;
}

export interface WriteOptions extends ShapeOptions {
  /**
   * The user's server file (default): written 0600, its folder made 0700 when missing. False:
   * a project's `.mcp.json`, which keeps its mode (0644 when new) in a folder that must exist.
   */
  readonly private?: boolean;
}

export interface EditOutcome<R> {
  /** What the edit returned. */
  readonly result: R;
  /** True when the file was written. */
  readonly changed: boolean;
  /** The file's text now (without a BOM). */
  readonly text: string;
}

/** How many times an edit runs again after another writer changed the file under it. */
const MAX_ATTEMPTS = 5;

async function write(loaded: Loaded, text: string, options: WriteOptions): Promise<void> {
  const { file } = loaded;
  const isPrivate = options.private ?? true;
  try {
    if (isPrivate) await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const mode = isPrivate ? 0o600 : (loaded.mode ?? 0o644);
    await replaceFile(file, (loaded.bom ? BOM : '') + text, mode);
  } catch (err) {
    throw new ServerFileError(
      file,
      'unwritable',
      `${file}: cannot be written: ${messageOf(err)}; check that its folder exists and is yours; ${NOTHING_CHANGED}`,
    );
  }
}

/**
 * Runs `edit` on the file and writes the result when it changed the text (see the module doc).
 * `edit` may throw (a ServerFileError, say) to refuse: nothing is written then.
 */
export async function editServerFile<R>(
  file: string,
  edit: (editor: ServerFileEditor) => R,
  options: WriteOptions = {},
): Promise<EditOutcome<R>> {
  const absolute = path.resolve(file);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const loaded = await load(absolute);
    const editor = editorOf(loaded, parse(absolute, loaded.text));
    const result = edit(editor);
    if (editor.text === loaded.text) return { result, changed: false, text: loaded.text };
    let text = editor.text;
    if (!loaded.exists && !text.endsWith('\n')) text += '\n';
    validated(absolute, text, parse(absolute, text), options.shape ?? 'serverFile');
    const now = await load(absolute);
    if (now.exists !== loaded.exists || now.text !== loaded.text) continue;
    await write(loaded, text, options);
    return { result, changed: true, text };
  }
  throw new ServerFileError(
    absolute,
    'busy',
    `${absolute}: kept changing while mcpctl edited it (another program is writing it); try again when it is done; ${NOTHING_CHANGED}`,
  );
}

export interface ServerFileRead {
  readonly file: string;
  readonly exists: boolean;
  /** The text (without a BOM); '' for a missing file. */
  readonly text: string;
  readonly content: ServerFileContent;
  /** Warnings (unknown fields), located: `file:line:column: message`. */
  readonly warnings: readonly string[];
}

/** Reads and validates a server file; a missing one is empty. Refusals as the editor's. */
export async function readServerFile(
  file: string,
  options: ShapeOptions = {},
): Promise<ServerFileRead> {
  const absolute = path.resolve(file);
  const loaded = await load(absolute);
  const parsed = parse(absolute, loaded.text);
  const v = validated(absolute, loaded.text, parsed, options.shape ?? 'serverFile');
  const warnings = v.warnings.map(
    (w) => `${at(absolute, loaded.text, issueOffset(parsed.tree, w.path))}: ${w.message}`,
  );
  return { file: absolute, exists: loaded.exists, text: loaded.text, content: v.content, warnings };
}
