/**
 * The two requests diagnostics.ts needs of a server, chosen from what it offers: how to pull a
 * document's diagnostics, and which question proves it took a document version in.
 *
 * Guarantees:
 * - Pull diagnostics are used when the server offered them at initialize (with its
 *   `identifier`) or registered `textDocument/diagnostic` later; otherwise none (publishes
 *   only).
 * - The barrier (diagnostics.ts, rule 3) is `textDocument/documentSymbol` when offered, else
 *   `textDocument/hover` at the document's start, else none: a question about the document
 *   whose answer the server gives only after it read the sync before it.
 */
import type { ServerCapabilities } from 'vscode-languageserver-protocol/node';
import type { DocumentSnapshot } from './documents.js';

/** Pull diagnostics: offered statically or registered later; undefined when neither. */
export function pullOf(
  capabilities: ServerCapabilities,
  registered: (method: string) => boolean,
): { identifier?: string } | undefined {
  const provider = capabilities.diagnosticProvider;
  if (provider) return provider.identifier !== undefined ? { identifier: provider.identifier } : {};
  return registered('textDocument/diagnostic') ? {} : undefined;
}

/** A request about `doc` the server must take the sync in before answering. */
export function barrierOf(
  capabilities: ServerCapabilities,
  doc: DocumentSnapshot,
): { method: string; params: object } | undefined {
  const textDocument = { uri: doc.uri };
  if (capabilities.documentSymbolProvider)
    return { method: 'textDocument/documentSymbol', params: { textDocument } };
  if (capabilities.hoverProvider)
    return {
      method: 'textDocument/hover',
      params: { textDocument, position: { line: 0, character: 0 } },
    };
  return undefined;
}
