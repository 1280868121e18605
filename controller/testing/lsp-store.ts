/**
 * A session store whose language servers a test sets by hand (until the `.lsp.json` informer
 * fills DesiredState.languageServers): no MCP servers, a trusted workspace, the LSP gating
 * computed as the informer will (ceiling as `allowed`, `pending` from the store's
 * `lspApprovals`), and a change naming every language server whose entry moved.
 */
import {
  isGatedScope,
  jsonEqual,
  LANGUAGE_SERVER,
  MCP_SERVER,
  type ApprovalState,
  type DesiredLanguageServer,
  type LanguageServerConfig,
  type LanguageServerScope,
} from '../../api/index.js';
import type { SessionStoreOptions } from '../../informers/session-store.js';
import type {
  DesiredByKind,
  DesiredState,
  ResyncedNames,
  SessionStore,
  StoreChange,
} from '../../informers/types.js';

export class LspTestStore implements SessionStore {
  #servers: Record<string, DesiredLanguageServer> = Object.create(null) as Record<
    string,
    DesiredLanguageServer
  >;
  #ceiling: readonly string[] | undefined;
  #lookup: (server: DesiredLanguageServer) => ApprovalState = (s) =>
    isGatedScope(s.scope) ? 'pending' : 'approved';
  readonly #listeners = new Set<(change: StoreChange) => void>();

  constructor(readonly workspace: string) {}

  /** The storeFactory a session takes: this store, reading approvals as the session says. */
  factory(): (options: SessionStoreOptions) => SessionStore {
    return (options) => {
      if (options.lspApprovals) this.#lookup = options.lspApprovals;
      return this;
    };
  }

  /** Replaces the language servers (and the ceiling); names whose entry moved are told. */
  set(
    entries: Record<string, { config: LanguageServerConfig; scope?: LanguageServerScope }>,
    ceiling?: readonly string[],
  ): void {
    const next = Object.create(null) as Record<string, DesiredLanguageServer>;
    for (const [name, e] of Object.entries(entries))
      next[name] = {
        kind: 'LanguageServer',
        name,
        scope: e.scope ?? 'cli',
        source: e.scope === 'project' ? `${this.workspace}/.lsp.json` : '/etc/lsp.json',
        config: e.config,
      };
    const names = new Set([...Object.keys(this.#servers), ...Object.keys(next)]);
    const ceilingMoved = !jsonEqual(ceiling ?? null, this.#ceiling ?? null);
    const moved = [...names].filter(
      (n) => ceilingMoved || !jsonEqual(this.#servers[n] ?? null, next[n] ?? null),
    );
    this.#servers = next;
    this.#ceiling = ceiling;
    this.#emit({
      names: { [MCP_SERVER]: [], [LANGUAGE_SERVER]: moved },
      configValidityChanged: false,
    });
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  current(): DesiredState {
    const servers = this.#servers;
    const pending = Object.values(servers)
      .filter((s) => isGatedScope(s.scope) && this.#lookup(s) !== 'approved')
      .map((s) => s.name)
      .sort();
    return {
      kinds: {
        [MCP_SERVER]: {
          servers: Object.create(null) as DesiredByKind[typeof MCP_SERVER]['servers'],
          gating: { excluded: [], pending: [] },
          trusted: true,
        },
        [LANGUAGE_SERVER]: {
          servers,
          gating:
            this.#ceiling === undefined
              ? { excluded: [], pending }
              : { excluded: [], allowed: [...this.#ceiling], pending },
          trusted: true,
        },
      },
      mcp: undefined,
      trusted: true,
      sources: [],
    };
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  resync(): Promise<ResyncedNames> {
    return Promise.resolve({
      [MCP_SERVER]: [],
      [LANGUAGE_SERVER]: Object.keys(this.current().kinds[LANGUAGE_SERVER].servers),
    });
  }

  peek(): Promise<DesiredState> {
    return Promise.resolve(this.current());
  }

  refreshGating(): void {
    this.#emit({
      names: { [MCP_SERVER]: [], [LANGUAGE_SERVER]: Object.keys(this.#servers) },
      configValidityChanged: false,
    });
  }

  close(): Promise<void> {
    this.#listeners.clear();
    return Promise.resolve();
  }

  #emit(change: StoreChange): void {
    for (const l of this.#listeners) l(change);
  }
}
