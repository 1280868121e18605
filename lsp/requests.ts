/**
 * The questions the gateway's `lsp_*` tools ask, as plain objects in and out: files relative
 * to the workspace, lines and columns 1-based in code points (positions.ts), no LSP types.
 *
 * Guarantees:
 * - `file` is relative to the workspace or absolute inside it; anything else is refused
 *   (workspace-files.ts). Before the question, the file is synced from disk and so is every
 *   other open document whose file changed (documents.ts): the answer is about the files as
 *   they are now.
 * - A line past the end of the file is refused, naming the file's line count; a column past
 *   its line's end means the line's end.
 * - Positions in answers are converted with the text the server had (the synced document, or
 *   for a file it did not have open, the file as read now); paths are relative to the
 *   workspace, absolute outside it, a non-file URI as it is. `text` is the location's line,
 *   trimmed, at most TEXT_CHARS characters. Only files whose realpath is in the workspace are
 *   read, only regular ones within the size limits (answer-texts.ts): a location in any other
 *   file has no `text`, and its positions are the server's numbers.
 * - A question the server offers no provider for is refused with a clear error, as is one it
 *   answers with an error. A request the server cancels because the document changed under it
 *   (ContentModified, ServerCancelled, RequestCancelled) is asked once more.
 * - Every question but diagnostics is asked when the work the server reports (loading the
 *   project) is done (connection.ts `whenReady`); an answer given while it was still at work
 *   says so in `partial`, never silently.
 * - `rename` previews: it returns the edits, mcpctl writes nothing.
 * - Lists (locations, symbols, diagnostics) hold at most MAX_ANSWER_ITEMS, the first in the
 *   server's order, cut before any file is read for them; `truncated` then says how many there
 *   were (answer-limits.ts). A rename preview is never cut.
 */
import type {
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
  SymbolInformation,
  TextEdit,
  WorkspaceEdit,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol/node';
import { firstItems, firstNodes, type Truncated } from './answer-limits.js';
import { AnswerTexts } from './answer-texts.js';
import type { LspConnection, ReadyAnswer } from './connection.js';
import { LspError } from './errors.js';
import {
  fromLspPosition,
  fromLspRange,
  TextLines,
  toLspPosition,
  type LspRange,
} from './positions.js';
import { displayUri, resolveInWorkspace } from './workspace-files.js';

export const TEXT_CHARS = 200;

/** Requests cancelled by a change of the document: asked again once. */
const RETRIED_CODES = new Set([-32800, -32801, -32802]);

/**
 * Whose workspace the agent speaks of: `file` arguments resolve, and answers' paths show,
 * relative to `root` (the agent session's workspace, absolute realpath), which may hold the
 * server's own folder (`workspaceFolder: "packages/app"`). Default: the server's folder.
 */
export interface ViewOptions {
  readonly root?: string;
  /** The asker gave up (an agent's cancel): the server's request is cancelled too. */
  readonly signal?: AbortSignal;
}

function rootOf(conn: LspConnection, options: ViewOptions): string {
  return options.root ?? conn.workspaceFolder;
}

export interface FileArgs {
  readonly file: string;
}

export interface PositionArgs extends FileArgs {
  readonly line: number;
  readonly column: number;
}

export interface LocationView {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  /** The location's line; absent when its file is not read (answer-texts.ts says when). */
  readonly text?: string;
}

/** Said by an answer the server gave while still at work (loading): it may be incomplete. */
export type PartialView = {
  readonly partial?: string;
};

/** An answer of locations, cut to MAX_ANSWER_ITEMS (answer-limits.ts). */
export type LocationsView = PartialView & {
  readonly locations: LocationView[];
  readonly truncated?: Truncated;
};

/** A hover: its markdown, empty when there is nothing there. */
export type HoverView = PartialView & { readonly contents: string };

export interface SymbolView {
  readonly name: string;
  readonly kind: string;
  readonly line: number;
  readonly column: number;
  readonly detail?: string;
  readonly children?: SymbolView[];
}

/** A file's outline, cut to MAX_ANSWER_ITEMS counting children (answer-limits.ts). */
export type DocumentSymbolsView = PartialView & {
  readonly symbols: SymbolView[];
  readonly truncated?: Truncated;
};

export interface WorkspaceSymbolView {
  readonly name: string;
  readonly kind: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly containerName?: string;
}

/** One server's symbols of the workspace, cut to MAX_ANSWER_ITEMS (answer-limits.ts). */
export type WorkspaceSymbolsView = PartialView & {
  readonly symbols: WorkspaceSymbolView[];
  readonly truncated?: Truncated;
};

export interface EditView {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly newText: string;
}

export interface FileEditsView {
  readonly file: string;
  readonly edits: EditView[];
}

/** A rename preview: every edit, by file; never cut. */
export type RenameView = PartialView & { readonly changes: FileEditsView[] };

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export interface DiagnosticView {
  readonly severity: Severity;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly message: string;
  readonly source?: string;
  readonly code?: string | number;
}

export type DiagnosticsView =
  | {
      readonly file: string;
      readonly state: 'current';
      /** The document version the diagnostics are of. */
      readonly version: number;
      readonly diagnostics: DiagnosticView[];
      /** Present when there were more than MAX_ANSWER_ITEMS (answer-limits.ts). */
      readonly truncated?: Truncated;
    }
  | {
      readonly file: string;
      readonly state: 'analysing';
      readonly version: number;
      readonly message: string;
    };

/** LSP SymbolKind 1..26 by name. */
const SYMBOL_KINDS = [
  'File',
  'Module',
  'Namespace',
  'Package',
  'Class',
  'Method',
  'Property',
  'Field',
  'Constructor',
  'Enum',
  'Interface',
  'Function',
  'Variable',
  'Constant',
  'String',
  'Number',
  'Boolean',
  'Array',
  'Object',
  'Key',
  'Null',
  'EnumMember',
  'Struct',
  'Event',
  'Operator',
  'TypeParameter',
];

export function symbolKindName(kind: number): string {
  return SYMBOL_KINDS[kind - 1] ?? `Kind${kind}`;
}

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'information', 'hint'];

export async function definition(
  conn: LspConnection,
  args: PositionArgs,
  view: ViewOptions = {},
): Promise<LocationsView> {
  provides(conn, 'definitionProvider', 'definitions');
  const root = rootOf(conn, view);
  const at = await prepare(conn, args, root);
  const answer = await ask<Location | Location[] | LocationLink[] | null>(
    conn,
    'textDocument/definition',
    at.params,
    view.signal,
  );
  return { ...(await locationsView(conn, asLocations(answer.result), root)), ...partialOf(answer) };
}

export async function references(
  conn: LspConnection,
  args: PositionArgs & { readonly includeDeclaration?: boolean },
  view: ViewOptions = {},
): Promise<LocationsView> {
  provides(conn, 'referencesProvider', 'references');
  const root = rootOf(conn, view);
  const at = await prepare(conn, args, root);
  const answer = await ask<Location[] | null>(
    conn,
    'textDocument/references',
    { ...at.params, context: { includeDeclaration: args.includeDeclaration ?? true } },
    view.signal,
  );
  return { ...(await locationsView(conn, answer.result ?? [], root)), ...partialOf(answer) };
}

export async function hover(
  conn: LspConnection,
  args: PositionArgs,
  view: ViewOptions = {},
): Promise<HoverView> {
  provides(conn, 'hoverProvider', 'hover');
  const at = await prepare(conn, args, rootOf(conn, view));
  const answer = await ask<Hover | null>(conn, 'textDocument/hover', at.params, view.signal);
  const { result } = answer;
  return { contents: result ? hoverText(result.contents).trim() : '', ...partialOf(answer) };
}

export async function documentSymbols(
  conn: LspConnection,
  args: FileArgs,
  options: ViewOptions = {},
): Promise<DocumentSymbolsView> {
  provides(conn, 'documentSymbolProvider', 'document symbols');
  const file = await resolveInWorkspace(rootOf(conn, options), args.file);
  await conn.documents.refreshOthers(file);
  const doc = await conn.documents.sync(file);
  const lines = new TextLines(doc.text);
  const answer = await ask<DocumentSymbol[] | SymbolInformation[] | null>(
    conn,
    'textDocument/documentSymbol',
    { textDocument: { uri: doc.uri } },
    options.signal,
  );
  const { result } = answer;
  conn.documents.touch(file);
  const view = (s: DocumentSymbol): SymbolView => {
    const at = fromLspPosition(lines, s.selectionRange.start, conn.encoding);
    return {
      name: s.name,
      kind: symbolKindName(s.kind),
      line: at.line,
      column: at.column,
      ...(s.detail ? { detail: s.detail } : {}),
      ...(s.children && s.children.length > 0 ? { children: s.children.map(view) } : {}),
    };
  };
  const symbols = (result ?? []).map((s): SymbolView => {
    if ('selectionRange' in s) return view(s);
    const at = fromLspPosition(lines, s.location.range.start, conn.encoding);
    return { name: s.name, kind: symbolKindName(s.kind), line: at.line, column: at.column };
  });
  const cut = firstNodes(symbols, ({ children: _, ...node }, children) =>
    children ? { ...node, children } : node,
  );
  return {
    symbols: cut.items,
    ...(cut.truncated ? { truncated: cut.truncated } : {}),
    ...partialOf(answer),
  };
}

export async function workspaceSymbols(
  conn: LspConnection,
  args: { readonly query: string },
  options: ViewOptions = {},
): Promise<WorkspaceSymbolsView> {
  const root = rootOf(conn, options);
  provides(conn, 'workspaceSymbolProvider', 'workspace symbols');
  await conn.documents.refreshOthers();
  const answer = await ask<SymbolInformation[] | WorkspaceSymbol[] | null>(
    conn,
    'workspace/symbol',
    { query: args.query },
    options.signal,
  );
  const { result } = answer;
  const texts = new AnswerTexts(conn, root);
  const symbols: WorkspaceSymbolView[] = [];
  const cut = firstItems<SymbolInformation | WorkspaceSymbol>(result ?? []);
  for (const s of cut.items) {
    const range = 'range' in s.location ? s.location.range : undefined;
    const at = range ? await texts.nameIn(s.location.uri, range, s.name) : { line: 1, column: 1 };
    symbols.push({
      name: s.name,
      kind: symbolKindName(s.kind),
      file: displayUri(root, s.location.uri),
      line: at.line,
      column: at.column,
      ...(s.containerName ? { containerName: s.containerName } : {}),
    });
  }
  return {
    symbols,
    ...(cut.truncated ? { truncated: cut.truncated } : {}),
    ...partialOf(answer),
  };
}

export async function rename(
  conn: LspConnection,
  args: PositionArgs & { readonly newName: string },
  options: ViewOptions = {},
): Promise<RenameView> {
  provides(conn, 'renameProvider', 'rename');
  if (typeof args.newName !== 'string' || args.newName === '')
    throw new LspError('badRequest', 'newName must be a non-empty string');
  const root = rootOf(conn, options);
  const at = await prepare(conn, args, root);
  const answer = await ask<WorkspaceEdit | null>(
    conn,
    'textDocument/rename',
    { ...at.params, newName: args.newName },
    options.signal,
  );
  const edit = answer.result;
  const byUri = new Map<string, TextEdit[]>();
  for (const [uri, edits] of Object.entries(edit?.changes ?? {})) byUri.set(uri, [...edits]);
  for (const change of edit?.documentChanges ?? []) {
    if (!('textDocument' in change)) {
      // Asked for without resource operations; a server that sends one anyway is told no.
      throw new LspError(
        'response',
        `language server "${conn.name}" answered rename with a ${change.kind} of a file, which mcpctl does not preview`,
      );
    }
    const edits = byUri.get(change.textDocument.uri) ?? [];
    for (const e of change.edits)
      edits.push('newText' in e ? e : { range: e.range, newText: e.snippet.value });
    byUri.set(change.textDocument.uri, edits);
  }
  const texts = new AnswerTexts(conn, root);
  const changes: FileEditsView[] = [];
  for (const [uri, edits] of byUri) {
    const lines = await texts.lines(uri);
    const views = edits
      .map((e) => ({ ...range(lines, e.range, conn), newText: e.newText }))
      .sort((a, b) => a.line - b.line || a.column - b.column);
    changes.push({ file: displayUri(root, uri), edits: views });
  }
  changes.sort((a, b) => a.file.localeCompare(b.file));
  return { changes, ...partialOf(answer) };
}

/** Diagnostics of the file as it is on disk now (diagnostics.ts says how "now" is kept). */
export async function diagnostics(
  conn: LspConnection,
  args: FileArgs,
  options: { readonly timeoutMs?: number } & ViewOptions = {},
): Promise<DiagnosticsView> {
  const root = rootOf(conn, options);
  const file = await resolveInWorkspace(root, args.file);
  await conn.documents.refreshOthers(file);
  const answer = await conn.diagnostics(
    file,
    options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
  );
  conn.documents.touch(file);
  const shown = displayUri(root, answer.document.uri);
  if (answer.state === 'analysing') {
    return {
      file: shown,
      state: 'analysing',
      version: answer.document.version,
      message: `language server "${conn.name}" is still analysing ${shown}: ask again in a moment`,
    };
  }
  const lines = new TextLines(answer.document.text);
  const cut = firstItems(answer.diagnostics);
  return {
    file: shown,
    state: 'current',
    version: answer.document.version,
    diagnostics: cut.items.map((d) => diagnosticView(lines, d, conn)),
    ...(cut.truncated ? { truncated: cut.truncated } : {}),
  };
}

function diagnosticView(lines: TextLines, d: Diagnostic, conn: LspConnection): DiagnosticView {
  return {
    severity: SEVERITIES[(d.severity ?? 1) - 1] ?? 'error',
    ...range(lines, d.range, conn),
    message: typeof d.message === 'string' ? d.message : d.message.value,
    ...(d.source !== undefined ? { source: d.source } : {}),
    ...(d.code !== undefined ? { code: d.code } : {}),
  };
}

function range(
  lines: TextLines | undefined,
  r: LspRange,
  conn: LspConnection,
): { line: number; column: number; endLine: number; endColumn: number } {
  if (lines) return fromLspRange(lines, r, conn.encoding);
  // The text is not readable: show the server's numbers, 1-based.
  return {
    line: r.start.line + 1,
    column: r.start.character + 1,
    endLine: r.end.line + 1,
    endColumn: r.end.character + 1,
  };
}

/** Refuses a question the server has no provider for. */
function provides(
  conn: LspConnection,
  capability:
    | 'definitionProvider'
    | 'referencesProvider'
    | 'hoverProvider'
    | 'documentSymbolProvider'
    | 'workspaceSymbolProvider'
    | 'renameProvider',
  what: string,
): void {
  if (!conn.capabilities[capability])
    throw new LspError('badRequest', `language server "${conn.name}" does not offer ${what}`);
}

/** Resolves, syncs and converts a position question's file and position. */
async function prepare(
  conn: LspConnection,
  args: PositionArgs,
  root: string,
): Promise<{ file: string; params: { textDocument: { uri: string }; position: object } }> {
  if (
    !Number.isInteger(args.line) ||
    args.line < 1 ||
    !Number.isInteger(args.column) ||
    args.column < 1
  )
    throw new LspError(
      'badRequest',
      'line and column must be whole numbers from 1 (as an editor shows them)',
    );
  const file = await resolveInWorkspace(root, args.file);
  await conn.documents.refreshOthers(file);
  const doc = await conn.documents.sync(file);
  const lines = new TextLines(doc.text);
  if (args.line > lines.lineCount)
    throw new LspError(
      'badRequest',
      `line ${args.line} is past the end of ${args.file} (${lines.lineCount} lines)`,
    );
  const position = toLspPosition(lines, args, conn.encoding);
  return { file, params: { textDocument: { uri: doc.uri }, position } };
}

/**
 * A request, asked when the server's reported work is done, and once more when the server
 * cancelled it for a change of the document.
 */
function ask<R>(
  conn: LspConnection,
  method: string,
  params: object,
  signal?: AbortSignal,
): Promise<ReadyAnswer<R>> {
  const options = signal === undefined ? {} : { signal };
  return conn.whenReady(async () => {
    try {
      return await conn.request<R>(method, params, options);
    } catch (err) {
      if (err instanceof LspError && err.code !== undefined && RETRIED_CODES.has(err.code))
        return conn.request<R>(method, params, options);
      throw err;
    }
  }, options);
}

function partialOf(answer: ReadyAnswer<unknown>): PartialView {
  return answer.partial === undefined ? {} : { partial: answer.partial };
}

function asLocations(result: Location | Location[] | LocationLink[] | null): Location[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((l) =>
    'targetUri' in l ? { uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange } : l,
  );
}

/** The first MAX_ANSWER_ITEMS of `locations` as views (only their files are read). */
async function locationsView(
  conn: LspConnection,
  locations: readonly Location[],
  root: string,
): Promise<LocationsView> {
  const cut = firstItems(locations);
  const views = await locationViews(conn, cut.items, root);
  return { locations: views, ...(cut.truncated ? { truncated: cut.truncated } : {}) };
}

async function locationViews(
  conn: LspConnection,
  locations: readonly Location[],
  root: string,
): Promise<LocationView[]> {
  const texts = new AnswerTexts(conn, root);
  const views: LocationView[] = [];
  for (const l of locations) {
    const lines = await texts.lines(l.uri);
    const r = range(lines, l.range, conn);
    const text = lines
      ?.line(r.line - 1)
      .trim()
      .slice(0, TEXT_CHARS);
    views.push({ file: displayUri(root, l.uri), ...r, ...(text === undefined ? {} : { text }) });
  }
  return views;
}

export function hoverText(contents: MarkupContent | MarkedString | MarkedString[]): string {
  const one = (c: MarkedString | MarkupContent): string => {
    if (typeof c === 'string') return c;
    if ('kind' in c) return c.value;
    return `\`\`\`${c.language}\n${c.value}\n\`\`\``;
  };
  return (Array.isArray(contents) ? contents.map(one) : [one(contents)])
    .filter((s) => s.trim() !== '')
    .join('\n\n');
}
