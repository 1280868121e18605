/**
 * How a question is asked of a language server (the questions of requests.ts): the file
 * resolved and synced, the position converted, the provider checked, the request sent when the
 * server's reported work is done and asked once more when the server cancelled it for a change.
 *
 * Guarantees:
 * - `file` is relative to the workspace or absolute inside it; anything else is refused
 *   (workspace-files.ts). Before the question, the file is synced from disk and so is every
 *   other open document whose file changed (documents.ts): the answer is about the files as
 *   they are now.
 * - A line past the end of the file is refused, naming the file's line count; a column past
 *   its line's end means the line's end.
 * - A question the server offers no provider for is refused with a clear error, as is one it
 *   answers with an error. A request the server cancels because the document changed under it
 *   (ContentModified, ServerCancelled, RequestCancelled) is asked once more.
 * - Every question but diagnostics is asked when the work the server reports (loading the
 *   project) is done (connection.ts `whenReady`); an answer given while it was still at work
 *   says so in `partial`, never silently.
 */
import type { PartialView, PositionArgs, ViewOptions } from './answer-views.js';
import type { LspConnection, ReadyAnswer } from './connection.js';
import { LspError } from './errors.js';
import { TextLines, toLspPosition } from './positions.js';
import { resolveInWorkspace } from './workspace-files.js';

/** Requests cancelled by a change of the document: asked again once. */
const RETRIED_CODES = new Set([-32800, -32801, -32802]);

/** The folder the question's paths are relative to (ViewOptions.root). */
export function rootOf(conn: LspConnection, options: ViewOptions): string {
  return options.root ?? conn.workspaceFolder;
}

/** Refuses a question the server has no provider for. */
export function provides(
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
export async function prepare(
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
export function ask<R>(
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

/** The answer's `partial`, as a view spreads it. */
export function partialOf(answer: ReadyAnswer<unknown>): PartialView {
  return answer.partial === undefined ? {} : { partial: answer.partial };
}
