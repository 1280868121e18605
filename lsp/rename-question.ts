/**
 * The rename question: every edit, in every file, that renaming the symbol at a position takes.
 *
 * Guarantees: those of asking.ts; `rename` previews: it returns the edits, mcpctl writes
 * nothing, and a server that answers with a file operation (create, rename, delete a file) is
 * refused. Edits are sorted by position within a file, files by path; the preview is never cut.
 */
import type { TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol/node';
import { rangeView } from './answer-conversions.js';
import { AnswerTexts } from './answer-texts.js';
import type { FileEditsView, PositionArgs, RenameView, ViewOptions } from './answer-views.js';
import { ask, partialOf, prepare, provides, rootOf } from './asking.js';
import type { LspConnection } from './connection.js';
import { LspError } from './errors.js';
import { displayUri } from './workspace-files.js';

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
      .map((e) => ({ ...rangeView(lines, e.range, conn), newText: e.newText }))
      .sort((a, b) => a.line - b.line || a.column - b.column);
    changes.push({ file: displayUri(root, uri), edits: views });
  }
  changes.sort((a, b) => a.file.localeCompare(b.file));
  return { changes, ...partialOf(answer) };
}
