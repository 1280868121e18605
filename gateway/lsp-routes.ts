/**
 * Which language server answers an `lsp_*` tool call: chosen by the file's extension among the
 * session's configured language servers (controller/lsp-target.ts), pure and unit-testable.
 *
 * Guarantees:
 * - A file goes to a server whose `extensionToLanguage` covers it, by the rule the server's
 *   documents use (the longest extension the file name ends with, lsp/documents.ts): the most
 *   specific extension wins (`.d.ts` over `.ts`); among servers equally specific, a Ready one
 *   (by name), else the first not Ready (by name), so the answer is that server's `why`.
 * - A file no server covers is `unhandled`, with every configured extension for the message.
 * - Messages name the server, the file as given, and what to do; the `why` text of a server
 *   that is not Ready is its message and its fix, as an MCP tool of such a server answers.
 *   What a config wrote (names, extensions) is shown `printable`: escaped as every surface
 *   escapes text (api/escape.ts), bounded.
 */
import { escapeField } from '../api/index.js';
import type { LspTarget } from '../controller/lsp-target.js';
import type { LspConnection } from '../lsp/connection.js';
import { extensionOf } from '../lsp/documents.js';

export interface ReadyTarget {
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

/** A server that is not Ready, as its `why` says: the message and the fix. */
export function whyText(target: LspTarget): string {
  const why = target.unavailable;
  if (why === undefined)
    return `language server "${target.name}" is not ready yet: ask again in a moment`;
  return `${why.message}: ${why.action}`;
}

/** Why `lsp_workspace_symbols` has no server to ask. */
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

function byName(targets: readonly LspTarget[]): LspTarget[] {
  return [...targets].sort((a, b) => a.name.localeCompare(b.name));
}
