/**
 * What the informer layer offers the controller: the desired state of one session, assembled
 * from watched files, and a stream of "these server names are affected".
 */
import type { LANGUAGE_SERVER, MCP_SERVER } from '../api/index.js';
import {
  type ComputedGating,
  type DesiredLanguageServers,
  type DesiredServers,
  type McpSettings,
  type PerKind,
  type Scope,
} from '../api/index.js';

/** A problem with one source file, located for humans. */
export interface SourceError {
  readonly file: string;
  /** 1-based; 0 when the error is about the whole file. */
  readonly line: number;
  readonly column: number;
  readonly message: string;
  /** `parse`: the text is not JSON(C); otherwise it parsed but did not validate or read. */
  readonly kind?: 'parse';
}

export type SourceKind =
  | 'settings'
  | 'workspaceSettings'
  | 'geminiSettings'
  | 'mcpJson'
  | 'serverFile'
  | 'projectMcpJson'
  | 'lspJson'
  | 'projectLspJson'
  | 'trustedFolders';

/** What a source file gives its session: MCP servers (and gating), language servers, or trust. */
export type SourceHolds = 'servers' | 'languageServers' | 'trust';

export interface SourceStatus {
  readonly file: string;
  readonly scope: Scope | 'trust';
  readonly holds: SourceHolds;
  /** True when the file exists (a missing file is an empty source, not an error). */
  readonly exists: boolean;
  /** Errors of the latest read; empty when the last read was good. The last good content stays. */
  readonly errors: readonly SourceError[];
  readonly warnings: readonly SourceError[];
  /**
   * True when content of the file is in force: its last good document. False when no read of
   * it ever gave one (never read well, or empty or missing when it was), so while it has
   * errors nothing of it is in force.
   */
  readonly inForce: boolean;
}

/** What one kind of server the session should run, and what admits each. */
export interface KindDesired<S> {
  readonly servers: S;
  readonly gating: ComputedGating;
  /** The session's trust (DesiredState's), here too: it admits every kind alike. */
  readonly trusted: boolean;
}

/**
 * The desired servers of each kind. MCP servers: the merged maps of every source, gated by the
 * settings' `mcp` lists and the ceiling. Language servers: `<ws>/.lsp.json` (project, gated) and
 * `--lsp-config` (cli); `allowed` = the `--allowed-lsp-server-names` ceiling (absent = all,
 * `[]` = none), `excluded` empty, `pending` = project servers not approved for their config.
 */
export interface DesiredByKind {
  readonly [MCP_SERVER]: KindDesired<DesiredServers>;
  readonly [LANGUAGE_SERVER]: KindDesired<DesiredLanguageServers>;
}

export interface DesiredState {
  readonly kinds: DesiredByKind;
  /** The merged `mcp` section of the settings layers. */
  readonly mcp: McpSettings | undefined;
  readonly trusted: boolean;
  readonly sources: readonly SourceStatus[];
}

export interface StoreChange {
  /**
   * Per kind, the names whose desired spec or admission inputs changed. Empty everywhere:
   * nothing to reconcile.
   */
  readonly names: PerKind<readonly string[]>;
  /** Set when a source's validity changed (became invalid, or was fixed). */
  readonly configValidityChanged: boolean;
}

/** Every name known before or after a resync (old ∪ new), sorted, per kind. */
export type ResyncedNames = PerKind<readonly string[]>;

export interface SessionStore {
  /** Reads every source once and starts watching; resolves when the first state is assembled. */
  start(): Promise<void>;
  current(): DesiredState;
  /** Subscribe to changes; returns an unsubscribe function. */
  onChange(listener: (change: StoreChange) => void): () => void;
  /** Re-read every source from disk, commit, and return every known name of both kinds. */
  resync(): Promise<ResyncedNames>;
  /** What the files on disk say now, without committing anything (for `diff`). */
  peek(): Promise<DesiredState>;
  /**
   * Recompute both gatings after an approval decision; emits a change for the names (of each
   * kind) whose gating moved.
   */
  refreshGating(): void;
  close(): Promise<void>;
}
