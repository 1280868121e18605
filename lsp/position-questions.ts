/**
 * The questions about one position of a file: go to definition, find references, hover.
 * Asked as asking.ts asks; answered as answer-conversions.ts converts.
 *
 * Guarantees: those of asking.ts and answer-conversions.ts; `references` includes the
 * declaration unless `includeDeclaration` is false.
 */
import type { Hover, Location, LocationLink } from 'vscode-languageserver-protocol/node';
import { asLocations, hoverText, locationsView } from './answer-conversions.js';
import type { HoverView, LocationsView, PositionArgs, ViewOptions } from './answer-views.js';
import { ask, partialOf, prepare, provides, rootOf } from './asking.js';
import type { LspConnection } from './connection.js';

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
