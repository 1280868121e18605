/**
 * The requests diagnostics.ts needs of a server, chosen from what it offers: how to pull a
 * document's diagnostics, and which question proves it took a document version in.
 *
 * Guarantees:
 * - Pull (rule 1): `textDocument/diagnostic` when the server offered it at initialize (with its
 *   `identifier`) or registered it later; an answer that is not a full report rejects (a
 *   `response` LspError), never taken as "no diagnostics".
 * - Else pull through the server's own command (rule 2) when it lists one we know and the
 *   connection allows it (`serverCommand`): typescript-language-server's
 *   `typescript.tsserverRequest` (tsserver-diagnostics.ts). Else none: publishes only.
 * - The barrier (diagnostics.ts, rule 4) is `textDocument/documentSymbol` when offered, else
 *   `textDocument/hover` at the document's start, else none: a question about the document
 *   whose answer the server gives only after it read the sync before it.
 */
import type {
  DocumentDiagnosticReport,
  ServerCapabilities,
} from 'vscode-languageserver-protocol/node';
import type { DiagnosticsPull } from './diagnostics.js';
import type { DocumentSnapshot } from './documents.js';
import { LspError } from './errors.js';
import {
  offersTsserverRequest,
  tsserverDiagnostics,
  type TsserverPullDeps,
} from './tsserver-diagnostics.js';

export interface PullDeps extends TsserverPullDeps {
  /** Whether a server's own command may be used (rule 2); the publishes otherwise. */
  readonly serverCommand: boolean;
}

/** How to pull diagnostics from this server (rules 1 and 2); undefined when it only publishes. */
export function pullOf(
  capabilities: ServerCapabilities,
  registered: (method: string) => boolean,
  deps: PullDeps,
): DiagnosticsPull | undefined {
  const provider = capabilities.diagnosticProvider;
  if (provider || registered('textDocument/diagnostic')) {
    const identifier = provider?.identifier;
    return {
      rule: 'pull',
      ask: async (doc, timeoutMs) => {
        const report = await deps.request<DocumentDiagnosticReport>(
          'textDocument/diagnostic',
          { textDocument: { uri: doc.uri }, ...(identifier !== undefined ? { identifier } : {}) },
          { timeoutMs },
        );
        if (report?.kind === 'full' && Array.isArray(report.items)) return report.items;
        // Not a full report ('unchanged' answers a previousResultId, which is never sent).
        throw new LspError(
          'response',
          'textDocument/diagnostic was answered without a full report',
        );
      },
    };
  }
  if (deps.serverCommand && offersTsserverRequest(capabilities.executeCommandProvider?.commands))
    return { rule: 'command', ask: (doc, timeoutMs) => tsserverDiagnostics(deps, doc, timeoutMs) };
  return undefined;
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
