/**
 * What mcpctl tells a language server at `initialize`: who it is, where the workspace is, and
 * the client capabilities the `lsp_*` tools need — no more, so a server does not spend work on
 * features nobody asks for (semantic tokens, inlay hints, code lenses).
 *
 * Guarantees:
 * - `rootUri`, `rootPath` and the single workspace folder are the workspace folder given.
 * - Position encodings offered: utf-16 (every server's default) first, then utf-8 and utf-32,
 *   which positions.ts converts as well.
 * - Diagnostics: push with `versionSupport` (so answers can be matched to document versions),
 *   and pull (`textDocument/diagnostic`).
 * - Workspace edits are asked for as `documentChanges` (versioned) without resource operations:
 *   mcpctl previews edits, it never applies them (`workspace/applyEdit` is refused).
 * - `workspace.configuration` and `didChangeConfiguration` are declared: settings are answered
 *   from the server's `settings` and sent again when they change.
 * - No dynamic registration is asked for; registrations a server sends anyway are accepted
 *   (server-requests.ts).
 */
import path from 'node:path';
import type { ClientCapabilities, InitializeParams } from 'vscode-languageserver-protocol/node';
import { POSITION_ENCODINGS } from './positions.js';
import { uriOf } from './workspace-files.js';

const MARKUP: ('markdown' | 'plaintext')[] = ['markdown', 'plaintext'];

/** The SymbolKind values 1..26 of LSP 3.17, all understood. */
const ALL_SYMBOL_KINDS = Array.from({ length: 26 }, (_, i) => (i + 1) as 1);

export const CLIENT_CAPABILITIES: ClientCapabilities = {
  general: {
    positionEncodings: [...POSITION_ENCODINGS],
  },
  window: {
    workDoneProgress: true,
    showMessage: { messageActionItem: { additionalPropertiesSupport: false } },
  },
  workspace: {
    configuration: true,
    didChangeConfiguration: { dynamicRegistration: false },
    workspaceFolders: true,
    applyEdit: false,
    workspaceEdit: { documentChanges: true, resourceOperations: [] },
    symbol: {
      dynamicRegistration: false,
      symbolKind: { valueSet: ALL_SYMBOL_KINDS },
    },
  },
  textDocument: {
    synchronization: {
      dynamicRegistration: false,
      willSave: false,
      willSaveWaitUntil: false,
      didSave: false,
    },
    definition: { dynamicRegistration: false, linkSupport: true },
    references: { dynamicRegistration: false },
    hover: { dynamicRegistration: false, contentFormat: MARKUP },
    documentSymbol: {
      dynamicRegistration: false,
      hierarchicalDocumentSymbolSupport: true,
      symbolKind: { valueSet: ALL_SYMBOL_KINDS },
    },
    rename: { dynamicRegistration: false, prepareSupport: false },
    publishDiagnostics: {
      relatedInformation: false,
      versionSupport: true,
      codeDescriptionSupport: false,
      dataSupport: false,
    },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
  },
};

export interface InitializeInput {
  /** Absolute workspace folder (a realpath). */
  readonly workspaceFolder: string;
  readonly initializationOptions?: unknown;
  /** This process's pid: a server may exit when its client is gone. */
  readonly processId?: number;
}

export function initializeParams(input: InitializeInput): InitializeParams {
  const uri = uriOf(input.workspaceFolder);
  return {
    processId: input.processId ?? process.pid,
    clientInfo: { name: 'mcpctl' },
    locale: 'en',
    rootPath: input.workspaceFolder,
    rootUri: uri,
    workspaceFolders: [
      { uri, name: path.basename(input.workspaceFolder) || input.workspaceFolder },
    ],
    capabilities: CLIENT_CAPABILITIES,
    ...(input.initializationOptions !== undefined
      ? { initializationOptions: input.initializationOptions }
      : {}),
    trace: 'off',
  };
}
