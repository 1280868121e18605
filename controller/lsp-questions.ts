/**
 * A language-server question asked of a session (`Session.ask`, the gateway's `lsp_*` tools
 * through SessionPort.ask): which of the session's configured language servers answers it, and
 * asking it. A question about a file goes to the Ready server of the file's extension; a
 * question about the workspace (`workspaceSymbols`) to every Ready server at once. The answers
 * are lsp/requests.ts's plain ones: whoever asks never holds a live connection.
 *
 * Guarantees:
 * - A file goes to a server whose `extensionToLanguage` covers it, by the rule the server's
 *   documents use (the longest extension the file name ends with, lsp/documents.ts): the most
 *   specific extension wins (`.d.ts` over `.ts`); among servers equally specific, a Ready one
 *   (by name), else the first not Ready (by name), so the answer is that server's `why`.
 * - Refusals reject with an LspError whose message the agent reads: a file no server covers
 *   names every configured extension; a server that is not Ready gives its `why` message and
 *   fix, as an MCP tool of such a server answers; no server configured, or none Ready, says so
 *   and what to do. What a config wrote (names, extensions) is shown `printable`: escaped as
 *   every surface escapes text (api/escape.ts), bounded.
 * - A question is asked with the target's `workspace` as its root (paths as the agent's
 *   workspace has them, whatever folder the server works on) and the asker's `signal` (its
 *   cancel reaches the server as `$/cancelRequest`, lsp/connection.ts).
 * - `workspaceSymbols` merges the Ready servers' answers in server order, each symbol once, then
 *   cuts to MAX_ANSWER_ITEMS counting what each server's own answer cut; it fails only when
 *   every server did (their messages joined), and otherwise names the servers that did not
 *   answer (`notAnswered`); their `partial`s are joined.
 */
import { escapeField } from '../api/index.js';
import { firstItems } from '../lsp/answer-limits.js';
import type { LspConnection } from '../lsp/connection.js';
import { extensionOf } from '../lsp/documents.js';
import { LspError, messageOf } from '../lsp/errors.js';
import {
  definition,
  diagnostics,
  documentSymbols,
  hover,
  references,
  rename,
  workspaceSymbols,
  type DiagnosticsView,
  type DocumentSymbolsView,
  type FileArgs,
  type HoverView,
  type LocationsView,
  type PositionArgs,
  type RenameView,
  type ViewOptions,
  type WorkspaceSymbolView,
} from '../lsp/requests.js';
import type { LspTarget } from './lsp-target.js';

export { MAX_ANSWER_ITEMS } from '../lsp/answer-limits.js';
export { LspError } from '../lsp/errors.js';
export type {
  DiagnosticsView,
  DocumentSymbolsView,
  FileArgs,
  HoverView,
  LocationsView,
  PositionArgs,
  RenameView,
  WorkspaceSymbolView,
} from '../lsp/requests.js';

/** `lsp_workspace_symbols`' answer: every Ready server's, merged. */
export interface MergedSymbolsView {
  readonly symbols: WorkspaceSymbolView[];
  readonly truncated?: { readonly total: number; readonly shown: number };
  readonly notAnswered?: { readonly server: string; readonly message: string }[];
  readonly partial?: string;
}

/** Each question: what it takes and what it answers. */
export interface LspQuestions {
  readonly definition: { args: PositionArgs; answer: LocationsView };
  readonly references: {
    args: PositionArgs & { readonly includeDeclaration?: boolean };
    answer: LocationsView;
  };
  readonly hover: { args: PositionArgs; answer: HoverView };
  readonly documentSymbols: { args: FileArgs; answer: DocumentSymbolsView };
  readonly rename: { args: PositionArgs & { readonly newName: string }; answer: RenameView };
  readonly diagnostics: { args: FileArgs; answer: DiagnosticsView };
  /** About the workspace: asked of every Ready server. */
  readonly workspaceSymbols: { args: { readonly query: string }; answer: MergedSymbolsView };
}

export type LspQuestion = keyof LspQuestions;
export type LspArgs<Q extends LspQuestion> = LspQuestions[Q]['args'];
export type LspAnswer<Q extends LspQuestion> = LspQuestions[Q]['answer'];

/** One configured language server as an asker sees it: no connection, only whether it is Ready. */
export interface LspServerView {
  readonly name: string;
  /** `{".ts": "typescript"}`: the files it answers about. */
  readonly extensionToLanguage: Readonly<Record<string, string>>;
  readonly ready: boolean;
  /** Why it is not Ready and the fix (its `why`), when it is not. */
  readonly unavailable?: { reason: string; message: string; action: string };
}

/** The targets as an asker sees them, in the session's order. */
export function serverViews(targets: readonly LspTarget[]): LspServerView[] {
  return targets.map((t) => ({
    name: t.name,
    extensionToLanguage: t.extensionToLanguage,
    ready: t.connection !== undefined,
    ...(t.unavailable === undefined ? {} : { unavailable: t.unavailable }),
  }));
}

type FileQuestion = Exclude<LspQuestion, 'workspaceSymbols'>;

/** lsp/requests.ts's question of each name, about one file. */
const FILE_QUESTIONS: {
  readonly [Q in FileQuestion]: (
    conn: LspConnection,
    args: LspArgs<Q>,
    view: ViewOptions,
  ) => Promise<LspAnswer<Q>>;
} = { definition, references, hover, documentSymbols, rename, diagnostics };

/**
 * Asks `question` of the server that answers it among `targets` (the session's configured
 * language servers): its answer, or an LspError the agent reads (see the guarantees).
 */
export function askLanguageServer<Q extends LspQuestion>(
  targets: readonly LspTarget[],
  question: Q,
  args: LspArgs<Q>,
  signal: AbortSignal,
): Promise<LspAnswer<Q>> {
  if (question === 'workspaceSymbols')
    return symbolsOfAll(targets, (args as LspArgs<'workspaceSymbols'>).query, signal);
  const file = (args as FileArgs).file;
  const route = routeFile(targets, file);
  if (route.kind !== 'ready') return Promise.reject(notRouted(route, file));
  const ask = FILE_QUESTIONS[question as Exclude<Q, 'workspaceSymbols'>] as (
    conn: LspConnection,
    args: LspArgs<Q>,
    view: ViewOptions,
  ) => Promise<LspAnswer<Q>>;
  return ask(route.connection, args, viewOf(route.target, signal));
}

/** Paths as the agent's workspace has them, whatever folder the server works on. */
function viewOf(target: LspTarget, signal: AbortSignal): ViewOptions {
  return target.workspace === undefined ? { signal } : { signal, root: target.workspace };
}

interface ReadyTarget {
  readonly target: LspTarget;
  readonly connection: LspConnection;
}

export type FileRoute =
  | ({ readonly kind: 'ready' } & ReadyTarget)
  | { readonly kind: 'unavailable'; readonly target: LspTarget }
  | { readonly kind: 'unhandled'; readonly extensions: readonly string[] };

/** The targets that are Ready now, by name. */
export function readyTargets(targets: readonly LspTarget[]): ReadyTarget[] {
  return byName(targets).flatMap((target) =>
    target.connection === undefined ? [] : [{ target, connection: target.connection }],
  );
}

/** The server that answers about `file`, or why none does. */
export function routeFile(targets: readonly LspTarget[], file: string): FileRoute {
  let best: { length: number; targets: LspTarget[] } = { length: 0, targets: [] };
  for (const target of byName(targets)) {
    const ext = extensionOf(file, Object.keys(target.extensionToLanguage));
    if (ext === undefined || ext.length < best.length) continue;
    if (ext.length > best.length) best = { length: ext.length, targets: [] };
    best.targets.push(target);
  }
  if (best.targets.length === 0) return { kind: 'unhandled', extensions: extensionsOf(targets) };
  const ready = best.targets.find((t) => t.connection !== undefined);
  if (ready?.connection) return { kind: 'ready', target: ready, connection: ready.connection };
  return { kind: 'unavailable', target: best.targets[0] };
}

/** Every configured extension, sorted, each once. */
export function extensionsOf(targets: readonly LspTarget[]): string[] {
  return [...new Set(targets.flatMap((t) => Object.keys(t.extensionToLanguage)))].sort();
}

/** What an agent reads when no Ready server answers about `file`. */
export function notRoutedMessage(
  route: Exclude<FileRoute, { kind: 'ready' }>,
  file: string,
): string {
  if (route.kind === 'unavailable') return whyText(route.target);
  if (route.extensions.length === 0) return NONE_CONFIGURED;
  const extensions = route.extensions.map((e) => printable(e)).join(', ');
  return `no language server handles ${file}: the configured extensions are ${extensions}`;
}

function notRouted(route: Exclude<FileRoute, { kind: 'ready' }>, file: string): LspError {
  return refusal(
    route.kind === 'unavailable' ? 'server' : 'badRequest',
    notRoutedMessage(route, file),
  );
}

/**
 * A refusal: an answer the agent reads, never a bug to trace, so it is made without a stack.
 * Capturing one costs more than the rest of a refused call (~15 µs on a loaded 2-core machine)
 * and this is the path the bench's "hop alone" row measures.
 */
function refusal(kind: 'server' | 'badRequest', message: string): LspError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new LspError(kind, message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A server that is not Ready, as its `why` says: the message and the fix. */
export function whyText(target: Pick<LspTarget, 'name' | 'unavailable'>): string {
  const why = target.unavailable;
  if (why === undefined)
    return `language server "${target.name}" is not ready yet: ask again in a moment`;
  return `${why.message}: ${why.action}`;
}

/** Why `workspaceSymbols` has no server to ask. */
export function noneReadyMessage(targets: readonly LspTarget[]): string {
  if (targets.length === 0) return NONE_CONFIGURED;
  return `no language server is ready: ${byName(targets).map(whyText).join('; ')}`;
}

const NONE_CONFIGURED =
  'no language server is configured for this workspace: add one to .lsp.json (or pass --lsp-config)';

const PRINTABLE_CHARS = 64;

/** Text from a config as a message or description shows it: escaped (api/escape.ts), bounded. */
export function printable(text: string): string {
  const clean = escapeField(text);
  return clean.length <= PRINTABLE_CHARS ? clean : `${clean.slice(0, PRINTABLE_CHARS)}…`;
}

function byName<T extends { readonly name: string }>(targets: readonly T[]): T[] {
  return [...targets].sort((a, b) => a.name.localeCompare(b.name));
}

async function symbolsOfAll(
  targets: readonly LspTarget[],
  query: string,
  signal: AbortSignal,
): Promise<MergedSymbolsView> {
  const ready = readyTargets(targets);
  if (ready.length === 0) throw refusal('server', noneReadyMessage(targets));
  const answers = await Promise.allSettled(
    ready.map(({ connection, target }) =>
      workspaceSymbols(connection, { query }, viewOf(target, signal)),
    ),
  );
  const merged: WorkspaceSymbolView[] = [];
  const seen = new Set<string>();
  const notAnswered: { server: string; message: string }[] = [];
  // What the servers' own answers left out (each cut to its first items already).
  let unshown = 0;
  const partial: string[] = [];
  answers.forEach((a, i) => {
    const server = ready[i].target.name;
    if (a.status === 'rejected') {
      notAnswered.push({ server, message: messageOf(a.reason) });
      return;
    }
    const cut = a.value.truncated;
    if (cut) unshown += cut.total - cut.shown;
    if (a.value.partial !== undefined) partial.push(a.value.partial);
    for (const s of a.value.symbols) {
      const key = JSON.stringify([s.name, s.kind, s.file, s.line, s.column]);
      if (seen.has(key)) continue;
      seen.add(key);
      merged.push(s);
    }
  });
  if (notAnswered.length === ready.length)
    throw refusal('server', notAnswered.map((n) => n.message).join('; '));
  const { items: symbols } = firstItems(merged);
  const total = merged.length + unshown;
  return {
    symbols,
    ...(total > symbols.length ? { truncated: { total, shown: symbols.length } } : {}),
    ...(notAnswered.length === 0 ? {} : { notAnswered }),
    ...(partial.length === 0 ? {} : { partial: partial.join('; ') }),
  };
}
