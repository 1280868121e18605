/**
 * The questions about symbols: a file's outline (`documentSymbols`) and the workspace's symbols
 * by name (`workspaceSymbols`). Asked as asking.ts asks.
 *
 * Guarantees: those of asking.ts; positions as answer-conversions.ts converts them (a
 * workspace symbol's at its name within its range, answer-texts.ts); an outline is cut to
 * MAX_ANSWER_ITEMS counting children, a workspace's symbols to MAX_ANSWER_ITEMS before any file
 * is read for them (answer-limits.ts).
 */
import type {
  DocumentSymbol,
  SymbolInformation,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol/node';
import { firstItems, firstNodes } from './answer-limits.js';
import { symbolKindName } from './answer-conversions.js';
import { AnswerTexts } from './answer-texts.js';
import type {
  DocumentSymbolsView,
  FileArgs,
  SymbolView,
  ViewOptions,
  WorkspaceSymbolsView,
  WorkspaceSymbolView,
} from './answer-views.js';
import { ask, partialOf, provides, rootOf } from './asking.js';
import type { LspConnection } from './connection.js';
import { fromLspPosition, TextLines } from './positions.js';
import { displayUri, resolveInWorkspace } from './workspace-files.js';

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
