/**
 * The questions the gateway's `lsp_*` tools ask (through the session, controller/
 * lsp-questions.ts), as plain objects in and out: files relative to the workspace, lines and
 * columns 1-based in code points (positions.ts), no LSP types. One module per part, each with
 * its guarantees:
 *
 * - answer-views.ts: what the questions take and answer (types only);
 * - asking.ts: how a question is asked (file resolved and synced, position converted, provider
 *   checked, asked when the server's reported work is done, retried once when cancelled for a
 *   change);
 * - answer-conversions.ts: the server's answers as those views (positions, paths, quoted lines);
 * - position-questions.ts (definition, references, hover), symbol-questions.ts (document and
 *   workspace symbols), rename-question.ts (a preview: mcpctl writes nothing),
 *   diagnostics-question.ts (of the file as it is on disk now).
 */
export { TEXT_CHARS, hoverText, symbolKindName } from './answer-conversions.js';
export type * from './answer-views.js';
export { diagnostics } from './diagnostics-question.js';
export { definition, hover, references } from './position-questions.js';
export { rename } from './rename-question.js';
export { documentSymbols, workspaceSymbols } from './symbol-questions.js';
