/**
 * Diagnostics pulled through typescript-language-server's own command (diagnostics.ts, rule 2).
 *
 * What the server does (5.3, read from its source): it offers no `textDocument/diagnostic` and
 * its publishes carry no version. After an open or a change it waits 300–800 ms (longer for
 * longer files) before it asks tsserver for the open files' errors (`geterr`); tsserver then
 * reports each file's syntax, semantic and suggestion diagnostics one kind after the other, and
 * the server publishes the union of the three kinds it has so far, 50 ms after the latest one
 * came (a debounce), so one content may be published in two or three passes — syntax first, the
 * type errors a semantic check later — and nothing in a publish says which pass it is. It
 * reports no work-done progress for this (its one progress is the project load, ended at the
 * first diagnostics event). What it does offer, in `executeCommandProvider.commands` and in
 * its README, is `typescript.tsserverRequest`: a tsserver request sent on the same queue as the
 * documents' opens and changes, answered with tsserver's response. tsserver answers
 * `syntacticDiagnosticsSync`, `semanticDiagnosticsSync` and `suggestionDiagnosticsSync` for
 * the content it has when it reads the request, and it reads requests in order, so three such
 * requests sent after a sync are the whole diagnostics of the synced content, with no wait for
 * the server's delay, its debounce, or a quiet time.
 *
 * Guarantees:
 * - Offered only when the server lists TSSERVER_REQUEST among its commands.
 * - The answer is what the server would publish for that content: the three kinds in its order
 *   (syntax, semantic, suggestion), converted as it converts them (tsserver's 1-based line and
 *   UTF-16 offset to LSP's 0-based position; category error, warning, suggestion to Error,
 *   Warning, Hint, anything else Error; the code; the source, "typescript" when none), less the
 *   codes its `diagnostics.ignoredCodes` setting ignores, and without suggestions when its
 *   `preferences.disableSuggestions` initialization option is set (it does not ask then).
 * - A response tsserver marks unsuccessful, or one of another shape, rejects with a `response`
 *   LspError (diagnostics.ts then reads the publishes); the server's own errors and timeouts
 *   reject as any request's do.
 */
import type { Diagnostic, DiagnosticSeverity } from 'vscode-languageserver-protocol/node';
import type { DocumentSnapshot } from './documents.js';
import { LspError } from './errors.js';

export const TSSERVER_REQUEST = 'typescript.tsserverRequest';

/** tsserver's diagnostics requests, in the order the server publishes their kinds. */
const KINDS = ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync'];

/** LSP's severities, by tsserver's category. */
const SEVERITY: Readonly<Record<string, DiagnosticSeverity>> = {
  error: 1,
  warning: 2,
  suggestion: 4,
};

export interface TsserverPullDeps {
  request<R>(method: string, params: object, options: { timeoutMs: number }): Promise<R>;
  /** The settings the server was sent (`diagnostics.ignoredCodes` is read from them). */
  settings(): unknown;
  /** What the server was initialized with (`preferences.disableSuggestions`). */
  readonly initializationOptions: unknown;
}

/** Whether the server offers the command (its `executeCommandProvider.commands`). */
export function offersTsserverRequest(commands: readonly unknown[] | undefined): boolean {
  return Array.isArray(commands) && commands.includes(TSSERVER_REQUEST);
}

/** The diagnostics of `doc`'s content as the server has it when it reads the requests. */
export async function tsserverDiagnostics(
  deps: TsserverPullDeps,
  doc: DocumentSnapshot,
  timeoutMs: number,
): Promise<Diagnostic[]> {
  const kinds = suggestionsOff(deps.initializationOptions) ? KINDS.slice(0, 2) : KINDS;
  // Sent together: tsserver answers them in order, each for the content it then has.
  const answers = await Promise.all(
    kinds.map((kind) =>
      deps.request<unknown>(
        'workspace/executeCommand',
        // executionTarget 0: the semantic tsserver (the syntax one has no semantic check).
        { command: TSSERVER_REQUEST, arguments: [kind, { file: doc.uri }, { executionTarget: 0 }] },
        { timeoutMs },
      ),
    ),
  );
  const ignored = ignoredCodes(deps.settings());
  return answers
    .flatMap((answer, i) => diagnosticsOf(answer, kinds[i] ?? ''))
    .filter((d) => typeof d.code !== 'number' || !ignored.has(d.code));
}

interface TsLocation {
  line: number;
  offset: number;
}

interface TsDiagnostic {
  start: TsLocation;
  end: TsLocation;
  text: string;
  code?: number;
  category: string;
  source?: string;
}

function diagnosticsOf(answer: unknown, kind: string): Diagnostic[] {
  const response = answer as { success?: unknown; body?: unknown; message?: unknown } | null;
  if (response?.success !== true || !Array.isArray(response.body)) {
    const why = typeof response?.message === 'string' ? `: ${response.message.slice(0, 200)}` : '';
    throw new LspError('response', `tsserver did not answer ${kind}${why}`);
  }
  return response.body.map((item: unknown) => {
    if (!isTsDiagnostic(item))
      throw new LspError('response', `tsserver answered ${kind} with an unknown diagnostic`);
    return {
      range: { start: positionOf(item.start), end: positionOf(item.end) },
      message: item.text,
      severity: SEVERITY[item.category] ?? 1,
      ...(item.code !== undefined ? { code: item.code } : {}),
      source: item.source ?? 'typescript',
    };
  });
}

function positionOf(at: TsLocation): { line: number; character: number } {
  return { line: at.line - 1, character: at.offset - 1 };
}

function isLocation(value: unknown): value is TsLocation {
  const at = value as Partial<TsLocation> | null;
  return (
    Number.isInteger(at?.line) && Number.isInteger(at?.offset) && at!.line! >= 1 && at!.offset! >= 1
  );
}

function isTsDiagnostic(value: unknown): value is TsDiagnostic {
  const d = value as Partial<TsDiagnostic> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    isLocation(d.start) &&
    isLocation(d.end) &&
    typeof d.text === 'string' &&
    typeof d.category === 'string' &&
    (d.code === undefined || typeof d.code === 'number') &&
    (d.source === undefined || typeof d.source === 'string')
  );
}

/** The server's `diagnostics.ignoredCodes` setting. */
function ignoredCodes(settings: unknown): Set<number> {
  const codes = (settings as { diagnostics?: { ignoredCodes?: unknown } } | null)?.diagnostics
    ?.ignoredCodes;
  return new Set(Array.isArray(codes) ? codes.filter((c) => typeof c === 'number') : []);
}

function suggestionsOff(options: unknown): boolean {
  const preferences = (options as { preferences?: { disableSuggestions?: unknown } } | null)
    ?.preferences;
  return preferences?.disableSuggestions === true;
}
