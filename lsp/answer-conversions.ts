/**
 * The language server's answers as the plain views of answer-views.ts: positions, paths, the
 * quoted line of a location, symbol kinds, severities, hover text.
 *
 * Guarantees:
 * - Positions in answers are converted with the text the server had (the synced document, or
 *   for a file it did not have open, the file as read now); paths are relative to the
 *   workspace, absolute outside it, a non-file URI as it is. `text` is the location's line,
 *   trimmed, at most TEXT_CHARS characters. Only files whose realpath is in the workspace are
 *   read, only regular ones within the size limits (answer-texts.ts): a location in any other
 *   file has no `text`, and its positions are the server's numbers.
 * - A list of locations holds at most MAX_ANSWER_ITEMS, the first in the server's order, cut
 *   before any file is read for them; `truncated` then says how many there were
 *   (answer-limits.ts).
 */
import type {
  Diagnostic,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
} from 'vscode-languageserver-protocol/node';
import { firstItems } from './answer-limits.js';
import { AnswerTexts } from './answer-texts.js';
import type { DiagnosticView, LocationsView, LocationView, Severity } from './answer-views.js';
import type { LspConnection } from './connection.js';
import { fromLspRange, type LspRange, type TextLines } from './positions.js';
import { displayUri } from './workspace-files.js';

export const TEXT_CHARS = 200;

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

export function diagnosticView(
  lines: TextLines,
  d: Diagnostic,
  conn: LspConnection,
): DiagnosticView {
  return {
    severity: SEVERITIES[(d.severity ?? 1) - 1] ?? 'error',
    ...rangeView(lines, d.range, conn),
    message: typeof d.message === 'string' ? d.message : d.message.value,
    ...(d.source !== undefined ? { source: d.source } : {}),
    ...(d.code !== undefined ? { code: d.code } : {}),
  };
}

/** A range as 1-based lines and columns of `lines` (the server's own numbers without them). */
export function rangeView(
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

/** A definition answer's locations, links as their target. */
export function asLocations(result: Location | Location[] | LocationLink[] | null): Location[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((l) =>
    'targetUri' in l ? { uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange } : l,
  );
}

/** The first MAX_ANSWER_ITEMS of `locations` as views (only their files are read). */
export async function locationsView(
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
    const r = rangeView(lines, l.range, conn);
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
