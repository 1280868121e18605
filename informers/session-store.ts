/**
 * The session store: the desired state of one session, kept in step with its watched files.
 *
 * Sources: system settings (`options.systemSettingsPath` ?? `$MCPCTL_SYSTEM_SETTINGS_PATH` ??
 * /etc/qwen-code/settings.json), user `<home>/.qwen/settings.json`, mcpctl's user server file
 * (`options.serverFilePath` ?? `$MCPCTL_SERVERS_PATH` ?? `<home>/.mcpctl/mcp.json`), workspace
 * `<ws>/.qwen/settings.json` (skipped when it is the user file, i.e. the workspace is the home,
 * as Qwen Code does), Gemini CLI's project `<ws>/.gemini/settings.json` (its `mcpServers` only;
 * skipped when it is Gemini's user file, `<home>/.gemini/settings.json`), project `<ws>/.mcp.json`, the `--mcp-config` file (scope `cli`),
 * `<home>/.qwen/trustedFolders.json`, and the language servers' project `<ws>/.lsp.json` and
 * `--lsp-config` file (scope `cli`). They come from SharedSources, so sessions share them.
 *
 * Guarantees:
 * - Every source keeps its last good content; the store assembles from those (desired-state.ts).
 * - On each committed change it computes the affected names of each kind (affected-names.ts)
 *   and notifies listeners only when some name is affected or some source's errors changed; an
 *   edit that moves neither servers nor gating (theme, skills, restart-only keys) notifies
 *   nobody. An edit of `.lsp.json` alone names no MCP server, and the reverse.
 * - peek() reads every file now and commits nothing, notifies no one.
 * - resync() re-reads every file, commits once, notifies as usual (one change at most for this
 *   session) and returns every name known before or after, per kind.
 * - refreshGating() recomputes both gatings only (after an approval decision) and notifies the
 *   names whose gating moved.
 * - close() releases every source (SharedSources closes those nobody else holds) and stops
 *   notifications; it does not close the SharedSources it was given.
 */
import type { SessionFlags } from '../api/index.js';
import path from 'node:path';
import {
  computeGating,
  userServerFilePath,
  type ApprovalLookup,
  type LanguageServerApprovalLookup,
  type McpServerConfig,
  LANGUAGE_SERVERS,
  MCP_SERVERS,
  perKind,
  SERVER_KINDS,
  type ComputedGating,
  type PerKind,
} from '../api/index.js';
import { assembleDesiredState, NO_LSP_APPROVALS, type SessionSnapshots } from './desired-state.js';
import { affectedNamesByKind, gatingMovedNames, sourceErrorsChanged } from './affected-names.js';
import type { FileSnapshot } from './file-source.js';
import { createSharedSources, type SharedSources, type SourceLease } from './shared-sources.js';
import type {
  DesiredByKind,
  DesiredState,
  ResyncedNames,
  SessionStore,
  StoreChange,
} from './types.js';

/** Whether a change names a server of any kind. */
function anyNamed(names: PerKind<readonly string[]>): boolean {
  return SERVER_KINDS.some((kind) => names[kind].length > 0);
}

export const DEFAULT_SYSTEM_SETTINGS_PATH = '/etc/qwen-code/settings.json';

/** What one store is made of: the session's files, its limits and where its sources come from. */
export interface SessionStoreOptions extends SessionFlags {
  /** The user's home (user settings, trustedFolders.json). */
  readonly home: string;
  /** Default `$MCPCTL_SYSTEM_SETTINGS_PATH`, else /etc/qwen-code/settings.json. */
  readonly systemSettingsPath?: string;
  /** mcpctl's user server file; default `$MCPCTL_SERVERS_PATH`, else `<home>/.mcpctl/mcp.json`. */
  readonly serverFilePath?: string;
  readonly approvals: ApprovalLookup;
  /**
   * The approval state of a project language server for its config. Default: none approved
   * (every project language server pending, so none is admitted).
   */
  readonly lspApprovals?: LanguageServerApprovalLookup;
  /** Per-file debounce; 300 ms unless a test or `--debounce-ms` says otherwise. */
  readonly debounceMs?: number;
  /**
   * Where the store gets its file sources. The daemon passes one SharedSources to every session
   * so that the user settings and trustedFolders.json are watched once for all of them.
   * Without it, the store makes private ones (with `debounceMs`); with it, its own debounce
   * applies and `debounceMs` is ignored.
   */
  readonly sharedSources?: SharedSources;
  /** Servers injected by the session that opened the store (scope `session`). */
  readonly sessionServers?: Readonly<Record<string, McpServerConfig>>;
}

/** The files of a session, by role (the workspace file absent when it is the user file). */
export interface SessionFiles {
  readonly system: string;
  readonly user: string;
  /** mcpctl's user server file (api/server-file.ts). */
  readonly servers: string;
  readonly workspace?: string;
  /** `<ws>/.gemini/settings.json`; absent when it is Gemini's user file (workspace = home). */
  readonly gemini?: string;
  readonly project: string;
  readonly cli?: string;
  /** `<ws>/.lsp.json`. */
  readonly projectLsp: string;
  /** The `--lsp-config` file. */
  readonly cliLsp?: string;
  readonly trustedFolders: string;
}

export function sessionFiles(options: SessionStoreOptions): SessionFiles {
  const home = path.resolve(options.home);
  const ws = path.resolve(options.workspace);
  const user = path.join(home, '.qwen', 'settings.json');
  const workspace = path.join(ws, '.qwen', 'settings.json');
  const gemini = path.join(ws, '.gemini', 'settings.json');
  return {
    system: path.resolve(
      options.systemSettingsPath ??
        process.env.MCPCTL_SYSTEM_SETTINGS_PATH ??
        DEFAULT_SYSTEM_SETTINGS_PATH,
    ),
    user,
    servers: path.resolve(options.serverFilePath ?? userServerFilePath(home)),
    ...(workspace === user ? {} : { workspace }),
    // Gemini's user file is setup's to move (cli/setup/gemini.ts), never a workspace source.
    ...(gemini === path.join(home, '.gemini', 'settings.json') ? {} : { gemini }),
    project: path.join(ws, '.mcp.json'),
    ...(options.mcpConfigPath === undefined ? {} : { cli: path.resolve(options.mcpConfigPath) }),
    projectLsp: path.join(ws, '.lsp.json'),
    ...(options.lspConfigPath === undefined ? {} : { cliLsp: path.resolve(options.lspConfigPath) }),
    trustedFolders: path.join(home, '.qwen', 'trustedFolders.json'),
  };
}

/** One lease per snapshot the desired state is assembled from, optional where it is. */
type Leases = {
  readonly [K in keyof SessionSnapshots]: NonNullable<SessionSnapshots[K]> extends FileSnapshot<
    infer T
  >
    ? SourceLease<T>
    : never;
};

/** What the store does with every source alike, whatever its value type. */
interface AnySource {
  start(): Promise<void>;
  refresh(): Promise<unknown>;
  onChange(listener: () => void): () => void;
}

interface AnyLease {
  readonly source: AnySource;
  release(): Promise<void>;
}

/** Every lease held, in one list (for start, refresh and release alike). */
function allLeases(l: Leases): AnyLease[] {
  const held: (AnyLease | undefined)[] = [
    l.system,
    l.user,
    l.servers,
    l.workspace,
    l.gemini,
    l.project,
    l.cli,
    l.projectLsp,
    l.cliLsp,
    l.trustedFolders,
  ];
  return held.filter((lease): lease is AnyLease => lease !== undefined);
}

function emptyState(): DesiredState {
  return {
    kinds: {
      [MCP_SERVERS.kind]: {
        servers: Object.create(null) as DesiredByKind[typeof MCP_SERVERS.kind]['servers'],
        gating: { excluded: [], pending: [] },
        trusted: false,
      },
      [LANGUAGE_SERVERS.kind]: {
        servers: Object.create(null) as DesiredByKind[typeof LANGUAGE_SERVERS.kind]['servers'],
        gating: { excluded: [], pending: [] },
        trusted: false,
      },
    },
    mcp: undefined,
    trusted: false,
    sources: [],
  };
}

function allSources(leases: Leases): AnySource[] {
  return allLeases(leases).map((lease) => lease.source);
}

export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const files = sessionFiles(options);
  const sources = options.sharedSources ?? createSharedSources({ debounceMs: options.debounceMs });
  const listeners = new Set<(change: StoreChange) => void>();
  let leases: Leases | undefined;
  let unsubscribes: (() => void)[] = [];
  let state = emptyState();
  let started: Promise<void> | undefined;
  let ready = false;
  let closed = false;
  let batching = 0;

  function assemble(snapshots: SessionSnapshots): DesiredState {
    return assembleDesiredState({
      workspace: options.workspace,
      snapshots,
      sessionServers: options.sessionServers,
      ceiling: options.ceiling,
      approvals: options.approvals,
      lspCeiling: options.lspCeiling,
      lspApprovals: options.lspApprovals,
    });
  }

  function committedSnapshots(l: Leases): SessionSnapshots {
    return {
      system: l.system.source.snapshot(),
      user: l.user.source.snapshot(),
      servers: l.servers?.source.snapshot(),
      workspace: l.workspace?.source.snapshot(),
      gemini: l.gemini?.source.snapshot(),
      project: l.project.source.snapshot(),
      cli: l.cli?.source.snapshot(),
      projectLsp: l.projectLsp.source.snapshot(),
      cliLsp: l.cliLsp?.source.snapshot(),
      trustedFolders: l.trustedFolders.source.snapshot(),
    };
  }

  function emit(change: StoreChange): void {
    for (const listener of [...listeners]) {
      try {
        listener(change);
      } catch (err) {
        process.emitWarning(`mcpctl session store listener failed: ${String(err)}`);
      }
    }
  }

  /** Re-assembles from the sources' snapshots, commits, and notifies when it matters. */
  function commit(): void {
    if (!leases || !ready || closed) return;
    const next = assemble(committedSnapshots(leases));
    const names = affectedNamesByKind(state, next);
    const configValidityChanged = sourceErrorsChanged(state.sources, next.sources);
    state = next;
    if (anyNamed(names) || configValidityChanged) emit({ names, configValidityChanged });
  }

  function onSourceChange(): void {
    // During resync() the sources report one by one; the store commits once at the end.
    if (batching > 0) return;
    commit();
  }

  async function doStart(): Promise<void> {
    const l: Leases = {
      system: sources.settings(files.system),
      user: sources.settings(files.user),
      servers: sources.serverFile(files.servers),
      ...(files.workspace === undefined
        ? {}
        : { workspace: sources.workspaceSettings(files.workspace) }),
      ...(files.gemini === undefined ? {} : { gemini: sources.geminiSettings(files.gemini) }),
      project: sources.projectMcpJson(files.project),
      ...(files.cli === undefined ? {} : { cli: sources.mcpJson(files.cli) }),
      projectLsp: sources.projectLspJson(files.projectLsp),
      ...(files.cliLsp === undefined ? {} : { cliLsp: sources.lspJson(files.cliLsp) }),
      trustedFolders: sources.trustedFolders(files.trustedFolders),
    };
    leases = l;
    unsubscribes = allSources(l).map((s) => s.onChange(onSourceChange));
    await Promise.all(allSources(l).map((s) => s.start()));
    if (closed) return;
    state = assemble(committedSnapshots(l));
    ready = true;
  }

  /** Every held source's file as it is now, by its role (one read each, in parallel). */
  async function peekSnapshots(l: Leases): Promise<SessionSnapshots> {
    const held = Object.entries(l) as [keyof Leases, SourceLease<unknown> | undefined][];
    const peeked = await Promise.all(
      held.map(async ([role, lease]) => [role, await lease?.source.peek()] as const),
    );
    // The roles are Leases' own, each lease peeks a snapshot of its role's type.
    return Object.fromEntries(
      peeked.filter(([, snap]) => snap !== undefined),
    ) as unknown as SessionSnapshots;
  }

  function requireStarted(what: string): Leases {
    if (!leases || !ready) throw new Error(`session store: ${what}() before start() finished`);
    return leases;
  }

  return {
    start() {
      started ??= doStart();
      return started;
    },
    current: () => state,
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async resync() {
      await started;
      const l = requireStarted('resync');
      const before = state;
      batching++;
      try {
        await Promise.all(allSources(l).map((s) => s.refresh()));
      } finally {
        batching--;
      }
      commit();
      const names: ResyncedNames = perKind((kind) =>
        [
          ...new Set([
            ...Object.keys(before.kinds[kind].servers),
            ...Object.keys(state.kinds[kind].servers),
          ]),
        ].sort(),
      );
      return names;
    },
    async peek() {
      await started;
      return assemble(await peekSnapshots(requireStarted('peek')));
    },
    refreshGating() {
      if (!ready || closed) return;
      const gating: PerKind<ComputedGating> = {
        [MCP_SERVERS.kind]: computeGating({
          settings: state.mcp,
          servers: state.kinds[MCP_SERVERS.kind].servers,
          ceiling: options.ceiling,
          approvals: options.approvals,
        }),
        [LANGUAGE_SERVERS.kind]: computeGating({
          settings: undefined,
          servers: state.kinds[LANGUAGE_SERVERS.kind].servers,
          ceiling: options.lspCeiling,
          approvals: options.lspApprovals ?? NO_LSP_APPROVALS,
        }),
      };
      const before = state;
      const names = perKind((kind) =>
        gatingMovedNames(
          before.kinds[kind].gating,
          gating[kind],
          Object.keys(before.kinds[kind].servers),
        ),
      );
      state = {
        ...state,
        kinds: {
          [MCP_SERVERS.kind]: {
            ...state.kinds[MCP_SERVERS.kind],
            gating: gating[MCP_SERVERS.kind],
          },
          [LANGUAGE_SERVERS.kind]: {
            ...state.kinds[LANGUAGE_SERVERS.kind],
            gating: gating[LANGUAGE_SERVERS.kind],
          },
        },
      };
      if (anyNamed(names)) emit({ names, configValidityChanged: false });
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      for (const unsubscribe of unsubscribes) unsubscribe();
      unsubscribes = [];
      await started?.catch(() => undefined);
      const l = leases;
      leases = undefined;
      if (l) await Promise.all(allLeases(l).map((lease) => lease.release()));
      // Sources the store made for itself have nothing left open now; shared ones it was
      // given belong to their owner.
      if (options.sharedSources === undefined) await sources.close();
    },
  };
}
