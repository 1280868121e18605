/**
 * The plain objects the language-server questions take and answer (requests.ts): files relative
 * to the workspace, lines and columns 1-based in code points (positions.ts), no LSP types, so
 * whoever asks (the session, the gateway's `lsp_*` tools) needs nothing of LSP. Types only.
 *
 * Guarantees:
 * - Every list (locations, symbols, diagnostics) says in `truncated` how many there were when
 *   it was cut to MAX_ANSWER_ITEMS (answer-limits.ts); a rename preview is never cut.
 * - An answer the server gave while still at work says so in `partial` (PartialView).
 */
import type { Truncated } from './answer-limits.js';

/**
 * Whose workspace the agent speaks of: `file` arguments resolve, and answers' paths show,
 * relative to `root` (the agent session's workspace, absolute realpath), which may hold the
 * server's own folder (`workspaceFolder: "packages/app"`). Default: the server's folder.
 */
export interface ViewOptions {
  readonly root?: string;
  /** The asker gave up (an agent's cancel): the server's request is cancelled too. */
  readonly signal?: AbortSignal;
}

export interface FileArgs {
  readonly file: string;
}

export interface PositionArgs extends FileArgs {
  readonly line: number;
  readonly column: number;
}

export interface LocationView {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  /** The location's line; absent when its file is not read (answer-texts.ts says when). */
  readonly text?: string;
}

/** Said by an answer the server gave while still at work (loading): it may be incomplete. */
export type PartialView = {
  readonly partial?: string;
};

/** An answer of locations, cut to MAX_ANSWER_ITEMS (answer-limits.ts). */
export type LocationsView = PartialView & {
  readonly locations: LocationView[];
  readonly truncated?: Truncated;
};

/** A hover: its markdown, empty when there is nothing there. */
export type HoverView = PartialView & { readonly contents: string };

export interface SymbolView {
  readonly name: string;
  readonly kind: string;
  readonly line: number;
  readonly column: number;
  readonly detail?: string;
  readonly children?: SymbolView[];
}

/** A file's outline, cut to MAX_ANSWER_ITEMS counting children (answer-limits.ts). */
export type DocumentSymbolsView = PartialView & {
  readonly symbols: SymbolView[];
  readonly truncated?: Truncated;
};

export interface WorkspaceSymbolView {
  readonly name: string;
  readonly kind: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly containerName?: string;
}

/** One server's symbols of the workspace, cut to MAX_ANSWER_ITEMS (answer-limits.ts). */
export type WorkspaceSymbolsView = PartialView & {
  readonly symbols: WorkspaceSymbolView[];
  readonly truncated?: Truncated;
};

export interface EditView {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly newText: string;
}

export interface FileEditsView {
  readonly file: string;
  readonly edits: EditView[];
}

/** A rename preview: every edit, by file; never cut. */
export type RenameView = PartialView & { readonly changes: FileEditsView[] };

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export interface DiagnosticView {
  readonly severity: Severity;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly message: string;
  readonly source?: string;
  readonly code?: string | number;
}

export type DiagnosticsView =
  | {
      readonly file: string;
      readonly state: 'current';
      /** The document version the diagnostics are of. */
      readonly version: number;
      readonly diagnostics: DiagnosticView[];
      /** Present when there were more than MAX_ANSWER_ITEMS (answer-limits.ts). */
      readonly truncated?: Truncated;
    }
  | {
      readonly file: string;
      readonly state: 'analysing';
      readonly version: number;
      readonly message: string;
    };
