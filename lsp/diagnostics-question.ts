/**
 * The diagnostics question: the errors and warnings of a file as it is on disk now, never of an
 * older version of it (diagnostics.ts says how "now" is kept).
 *
 * Guarantees: the file is resolved and the other open documents synced as asking.ts says; an
 * answer is `current` (the diagnostics of the document version it names, cut to
 * MAX_ANSWER_ITEMS, answer-limits.ts) or `analysing` (the server has not answered for the
 * current version yet) with the message an agent reads. It does not wait for the server's
 * reported work (diagnostics.ts has its own rules).
 */
import { firstItems } from './answer-limits.js';
import { diagnosticView } from './answer-conversions.js';
import type { DiagnosticsView, FileArgs, ViewOptions } from './answer-views.js';
import { rootOf } from './asking.js';
import type { LspConnection } from './connection.js';
import { TextLines } from './positions.js';
import { displayUri, resolveInWorkspace } from './workspace-files.js';

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
