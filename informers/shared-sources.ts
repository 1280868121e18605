/**
 * File sources shared between sessions, reference-counted (not "registry": that word is the
 * session's tool registry, reconcilers/registry.ts).
 *
 * Why shared sources each store acquires (and not pre-made sources handed to each store): the
 * daemon runs many sessions, and the user settings file and trustedFolders.json are the same
 * file for all of them; two sessions on one workspace even share every file. This way each
 * session simply acquires what it needs and releases it when it closes, nobody has to know
 * which session created a source, and the last release closes the watcher.
 *
 * Guarantees:
 * - One FileSource (one chokidar watcher, one debounce, one parse) per (kind, absolute path).
 * - acquire → lease; lease.release() is idempotent; the source is closed when its last lease is
 *   released, and acquiring it again later creates a fresh one.
 * - Its debounce and size cap apply to every source it makes.
 * - close() closes every source still open, whatever leases remain.
 */
import path from 'node:path';
import type { LanguageServerConfigs, ServerFileContent, SourceContent } from '../api/index.js';
import { createFileSource, type FileSource } from './file-source.js';
import {
  LSP_JSON_KIND,
  GEMINI_SETTINGS_KIND,
  MCP_JSON_KIND,
  PROJECT_LSP_JSON_KIND,
  PROJECT_MCP_JSON_KIND,
  SERVER_FILE_KIND,
  SETTINGS_KIND,
  TRUSTED_FOLDERS_KIND,
  WORKSPACE_SETTINGS_KIND,
  type KindOptions,
} from './source-kinds.js';
import type { TrustRule } from './trust.js';
import type { SourceKind } from './types.js';

export interface SourceLease<T> {
  readonly source: FileSource<T>;
  /** Gives the source back; closes it when this was the last lease. Idempotent. */
  release(): Promise<void>;
}

export interface SharedSourcesOptions {
  /** Per-file debounce of every source; 300 ms by default. */
  readonly debounceMs?: number;
  /** Size cap of every source; 4 MiB by default. */
  readonly maxBytes?: number;
}

export interface SharedSources {
  settings(file: string): SourceLease<SourceContent>;
  /** A workspace's settings: a gated scope, with the gated scopes' server cap. */
  workspaceSettings(file: string): SourceLease<SourceContent>;
  mcpJson(file: string): SourceLease<SourceContent>;
  /** A workspace's `.mcp.json`: a gated scope, with the gated scopes' server cap. */
  projectMcpJson(file: string): SourceLease<SourceContent>;
  /** A Gemini CLI project's `<ws>/.gemini/settings.json` (its `mcpServers`): gated, capped. */
  geminiSettings(file: string): SourceLease<SourceContent>;
  /** mcpctl's user server file (api/server-file.ts): one for every session. */
  serverFile(file: string): SourceLease<ServerFileContent>;
  /** A `--lsp-config` file: language servers the user trusts. */
  lspJson(file: string): SourceLease<LanguageServerConfigs>;
  /** A workspace's `.lsp.json`: a gated scope, with the gated scopes' server cap. */
  projectLspJson(file: string): SourceLease<LanguageServerConfigs>;
  trustedFolders(file: string): SourceLease<readonly TrustRule[]>;
  /** Number of open sources (for diagnostics and tests). */
  size(): number;
  close(): Promise<void>;
}

interface Entry {
  // Sources of different value types live in one map; each accessor casts back to the type its
  // own kind created (the kind is part of the key).
  readonly source: FileSource<unknown>;
  refs: number;
}

export function createSharedSources(options: SharedSourcesOptions = {}): SharedSources {
  const entries = new Map<string, Entry>();

  function acquire<T>(kind: SourceKind, kindOptions: KindOptions<T>, file: string) {
    const abs = path.resolve(file);
    const key = `${kind}\0${abs}`;
    let entry = entries.get(key);
    if (entry === undefined) {
      const source = createFileSource<T>({
        ...kindOptions,
        file: abs,
        debounceMs: options.debounceMs,
        maxBytes: options.maxBytes,
      });
      entry = { source, refs: 0 };
      entries.set(key, entry);
    }
    const held = entry;
    held.refs++;
    let released = false;
    const lease: SourceLease<T> = {
      source: held.source as FileSource<T>,
      async release() {
        if (released) return;
        released = true;
        held.refs--;
        if (held.refs === 0 && entries.get(key) === held) {
          entries.delete(key);
          await held.source.close();
        }
      },
    };
    return lease;
  }

  return {
    settings: (file) => acquire('settings', SETTINGS_KIND, file),
    workspaceSettings: (file) => acquire('workspaceSettings', WORKSPACE_SETTINGS_KIND, file),
    geminiSettings: (file) => acquire('geminiSettings', GEMINI_SETTINGS_KIND, file),
    mcpJson: (file) => acquire('mcpJson', MCP_JSON_KIND, file),
    projectMcpJson: (file) => acquire('projectMcpJson', PROJECT_MCP_JSON_KIND, file),
    serverFile: (file) => acquire('serverFile', SERVER_FILE_KIND, file),
    lspJson: (file) => acquire('lspJson', LSP_JSON_KIND, file),
    projectLspJson: (file) => acquire('projectLspJson', PROJECT_LSP_JSON_KIND, file),
    trustedFolders: (file) => acquire('trustedFolders', TRUSTED_FOLDERS_KIND, file),
    size: () => entries.size,
    async close() {
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map((e) => e.source.close()));
    },
  };
}
