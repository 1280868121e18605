/**
 * What the informer layer offers the controller: the desired state of one session, assembled
 * from watched files, and a stream of "these server names are affected".
 */
import type {
  ComputedGating,
  DesiredLanguageServers,
  DesiredServers,
  McpSettings,
  Scope,
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
  'settings' | 'workspaceSettings' | 'mcpJson' | 'projectMcpJson' | 'trustedFolders';

export interface SourceStatus {
  readonly file: string;
  readonly scope: Scope | 'trust';
  /** True when the file exists (a missing file is an empty source, not an error). */
  readonly exists: boolean;
  /** Errors of the latest read; empty when the last read was good. The last good content stays. */
  readonly errors: readonly SourceError[];
  readonly warnings: readonly SourceError[];
}

export interface DesiredState {
  readonly servers: DesiredServers;
  readonly gating: ComputedGating;
  /** The merged `mcp` section of the settings layers. */
  readonly mcp: McpSettings | undefined;
  readonly trusted: boolean;
  readonly sources: readonly SourceStatus[];
  /** Language servers of `<ws>/.lsp.json` (project, gated) and `--lsp-config` (cli). */
  readonly languageServers: DesiredLanguageServers;
  /**
   * Their gating: `allowed` = the `--allowed-lsp-server-names` ceiling (absent = all, `[]` =
   * none), `excluded` empty, `pending` = project servers not approved for their config.
   */
  readonly lspGating: ComputedGating;
}

export interface StoreChange {
  /** Server names whose desired spec or admission inputs changed. Empty: nothing to do. */
  readonly names: readonly string[];
  /** Language server names whose desired entry or admission inputs changed. */
  readonly languageServers?: readonly string[];
  /** Set when a source's validity changed (became invalid, or was fixed). */
  readonly configValidityChanged: boolean;
}

export interface SessionStore {
  /** Reads every source once and starts watching; resolves when the first state is assembled. */
  start(): Promise<void>;
  current(): DesiredState;
  /** Subscribe to changes; returns an unsubscribe function. */
  onChange(listener: (change: StoreChange) => void): () => void;
  /** Re-read every source from disk, commit, and return every known name (old ∪ new). */
  resync(): Promise<string[]>;
  /** What the files on disk say now, without committing anything (for `diff`). */
  peek(): Promise<DesiredState>;
  /** Recompute gating after an approval decision; emits a change for names whose gating moved. */
  refreshGating(): void;
  close(): Promise<void>;
}
