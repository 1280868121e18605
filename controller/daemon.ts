/**
 * The daemon core: one pool, one approval store, one set of watched files, many sessions.
 *
 * Why one file of ~460 lines: it is the daemon's lifecycle (start, open, stop) and the one
 * place its shared parts are wired; the session table (daemon-sessions.ts), the approvals
 * watch (approvals-watch.ts) and the orphan record (proc/) are apart already.
 *
 * Guarantees:
 * - At start, the children a previous daemon left behind (killed hard) are reaped from the
 *   state file before anything writes to it (with their descendants that carry its run mark,
 *   proc/run-mark.ts); then ONE recorder of that file (`processes`)
 *   serves every pool — MCP servers and language servers alike — and the default session (the `--workspace`
 *   of the daemon, with its ceiling, --mcp-config and `defaultSessionEnv`) is opened and
 *   pinned: openers never close it, only `stop()` does.
 * - Every session of the daemon shares the pool (equal configs share one process), the
 *   approval store (one file, one lock) and the file sources (SharedSources: the user settings
 *   and trustedFolders.json are watched once for all sessions).
 * - The approvals file is watched (approvals-watch.ts): a decision written by another process
 *   or by hand reaches every session without a restart.
 * - `open(spec)`: an opener of the daemon's folder that gives no flags gets the daemon's
 *   (folder-flags.ts); same workspace realpath, flags and environment → the same session,
 *   counted per opener; the last `release()` closes it and releases its leases, so the pool
 *   drains what nobody uses.
 * - `stop()` is idempotent: it refuses new sessions, stops every session (watchers off,
 *   queued work dropped, running reconciles finished, leases released), closes the watchers
 *   and then every pooled connection of both pools, MCP servers and language servers (process
 *   groups gone), and resolves when all is done.
 * - One language-server pool (pool/lsp-pool.ts) serves every session: two sessions of one
 *   workspace folder share one language server process.
 * - Every event of every session is logged (a Warning at warn level), those recorded while the
 *   session started included: a daemon started on a file that does not parse says so.
 * - Nothing here reads a process-global behind the caller's back: home, paths and seams are
 *   options, so tests run daemons side by side.
 */
import { ApprovalStore, PinStore, SessionApprovals, pinsFilePath } from '../approvals/index.js';
import { CatalogStore } from '../pool/catalog.js';
import {
  createSessionStore,
  createSharedSources,
  DEFAULT_DEBOUNCE_MS,
  type SharedSources,
} from '../informers/index.js';
import {
  createOAuthManager,
  defaultTokensPath,
  FileGrantStore,
  type LoginStart,
  type OAuthManager,
} from '../auth/index.js';
import { createPool } from '../pool/index.js';
import {
  ProcessRecorder,
  reapOrphans,
  type ProcessRecord,
  type ServerKind,
} from '../proc/index.js';
import type { Pool } from '../pool/types.js';
import {
  LANGUAGE_SERVERS,
  MCP_SERVERS,
  kindNamed,
  messageOf,
  redactUrl,
  sessionFlagsOf,
  type SessionFlags,
} from '../api/index.js';
import { watchApprovals, type ApprovalsWatch } from './approvals-watch.js';
import { withFolderFlags } from './folder-flags.js';
import {
  SessionTable,
  type NormalizedSpec,
  type AgentOpener,
  type SessionHandle,
  type SessionEnvSpec,
  type SessionInfo,
  type SessionSpec,
  type SessionTableEvent,
} from './daemon-sessions.js';
import type { McpEvent } from './event-recorder.js';
import type { ApprovalStoreLike } from './approval-decisions.js';
import { createLspPool, type LspPool } from '../pool/lsp-pool.js';
import { createSession, type Session, type SessionOptions } from './session.js';

export { DaemonStoppingError, WorkspaceNotFoundError } from './daemon-sessions.js';
export type {
  SessionSpec,
  SessionHandle,
  NormalizedSpec,
  SessionEnvSpec,
  AgentOpener,
  ClientInfo,
  WorkspaceFrom,
} from './daemon-sessions.js';

/** Structured logging as the daemon uses it; a pino logger fits. */
export interface DaemonLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const DEFAULT_SESSION_ID = 'default';

/** How long `logout` waits for the server to be disconnected before it answers anyway. */
const LOGOUT_SETTLE_MS = 5000;

/**
 * The flags (SessionFlags) are the default session's; its ceilings are also those of the
 * sessions the CLI opens.
 */
export interface DaemonOptions extends SessionFlags {
  /** Decides user settings, trustedFolders.json and (unless overridden) the approvals file. */
  readonly home: string;
  /**
   * The default session's environment, when it is not the daemon's own: a daemon started by
   * `mcpctl serve` runs in a minimal environment of its own, and its default session is that
   * serve's, in the agent's environment (which then joins it rather than opening a second).
   */
  readonly defaultSessionEnv?: SessionEnvSpec;
  /**
   * Set in every stdio server's environment over its session's (the daemon's marks, e.g. the
   * one that keeps a `mcpctl serve` among its servers inert).
   */
  readonly serverEnv?: Readonly<Record<string, string>>;
  readonly systemSettingsPath?: string;
  /** Per-file debounce of every watched file (default 300 ms). */
  readonly debounceMs?: number;
  /**
   * Where the pool records its children (reaped at the next start). Absent: no record, for a
   * controller in a process whose children end with it (`mcpctl serve --no-daemon`).
   */
  readonly stateFile?: string;
  /** How long an unused connection stays for a re-acquire (pool default 30 s). */
  readonly drainDelayMs?: number;
  /**
   * Start on demand, stop when idle (issue #34): the idle time of every MCP server whose entry
   * sets no `idleStopMs`. 0: every admitted server starts at once and runs while held.
   * Default 0 here; the command line's default is its DEFAULT_IDLE_STOP_MS (cli/commands/daemon.ts).
   */
  readonly idleStopMs?: number;
  /** Where the catalogs are kept between runs (beside the socket); absent: in memory only. */
  readonly catalogDir?: string;
  readonly log?: DaemonLog;
  /** Environment for the approvals file location (`MCPCTL_APPROVALS_PATH`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The OAuth grant store (default `~/.mcpctl/oauth-tokens.json` of `home`). */
  readonly tokensPath?: string;
  /** Seams for tests: a pool, an approval store, a session factory. */
  readonly pool?: Pool;
  readonly lspPool?: LspPool;
  readonly approvals?: ApprovalStoreLike;
  /** With an `approvals` seam: the pins to hold listings against (default: none). */
  readonly pins?: PinStore;
  readonly createSession?: (opts: SessionOptions) => Promise<Session>;
}

export interface ReapSummary {
  readonly killed: number;
  readonly skipped: number;
  readonly errors: readonly string[];
}

/** The kind a record says (records written before language servers have none: MCP). */
function kindOf(record: ProcessRecord): ServerKind {
  return record.kind === LANGUAGE_SERVERS.kind ? LANGUAGE_SERVERS.kind : MCP_SERVERS.kind;
}

function whatWasReaped(record: ProcessRecord): string {
  return `a ${kindNamed(kindOf(record)).noun}`;
}

const silentLog: DaemonLog = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export class Daemon {
  readonly pool: Pool;
  /** The language servers of every session (one process per workspace folder and entry). */
  readonly lspPool: LspPool;
  /** OAuth grants of remote servers: one login per server per machine, shared by sessions. */
  readonly oauth: OAuthManager;
  readonly approvals: ApprovalStoreLike;
  /** The tool and prompt pins (issue #35), beside the approvals file. */
  readonly pins: PinStore | undefined;
  /** What each MCP server listed last, per connectionId (issue #34); absent: idle stop off. */
  readonly catalogs: CatalogStore | undefined;
  readonly startedAt = new Date();
  readonly reaped: ReapSummary;
  /**
   * The one record of the server processes this daemon runs (the state file), reaped at the
   * next start after a hard kill; undefined without a state file. Every pool writes to it:
   * the language-server pool through `recordingHooks(processes, { kind: 'LanguageServer', … })`.
   */
  readonly processes: ProcessRecorder | undefined;
  readonly options: DaemonOptions;
  readonly #log: DaemonLog;
  readonly #sources: SharedSources;
  readonly #table: SessionTable<Session>;
  #defaultHandle: SessionHandle<Session> | undefined;
  #approvalsWatch: ApprovalsWatch | undefined;
  #pinsWatch: ApprovalsWatch | undefined;
  #stopping: Promise<void> | undefined;

  private constructor(
    options: DaemonOptions,
    pool: Pool,
    approvals: ApprovalStoreLike,
    reaped: ReapSummary,
    oauth: OAuthManager,
    processes: ProcessRecorder | undefined,
    pins: PinStore | undefined,
  ) {
    this.processes = processes;
    this.pins = pins;
    this.catalogs =
      (options.idleStopMs ?? 0) > 0 || options.catalogDir !== undefined
        ? new CatalogStore({
            ...(options.catalogDir !== undefined ? { dir: options.catalogDir } : {}),
            onIgnored: (file, why) =>
              this.#log.warn(
                { file },
                `a server catalog was not used: ${why}; the server starts to list anew`,
              ),
          })
        : undefined;
    this.options = options;
    this.oauth = oauth;
    this.#log = options.log ?? silentLog;
    this.pool = pool;
    this.lspPool =
      options.lspPool ??
      createLspPool({
        ...(options.drainDelayMs === undefined ? {} : { drainDelayMs: options.drainDelayMs }),
        ...(options.serverEnv ? { serverEnv: options.serverEnv } : {}),
        ...(processes === undefined ? {} : { processes }),
        onWarning: (message) => this.#log.warn({}, message),
      });
    this.approvals = approvals;
    this.reaped = reaped;
    this.#sources = createSharedSources(
      options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs },
    );
    this.#table = new SessionTable<Session>({
      create: (spec, id) => this.#createSession(spec, id),
      onCloseError: (id, err) =>
        this.#log.warn({ session: id, err: messageOf(err) }, 'session close failed'),
    });
    this.#table.on((event) => this.#log.info({ session: event.id }, `session ${event.type}`));
  }

  /** Reaps orphans, builds the shared parts, opens the default session. */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const log = options.log ?? silentLog;
    let reaped: ReapSummary = { killed: 0, skipped: 0, errors: [] };
    if (options.pool === undefined && options.stateFile !== undefined) {
      // Before the pool exists: its first write replaces the file with its own records.
      const report = await reapOrphans(options.stateFile);
      reaped = {
        killed: report.killed.length + report.marked.length,
        skipped: report.skipped.length,
        errors: report.errors,
      };
      for (const r of report.killed)
        log.warn(
          { serverPid: r.pid, kind: kindOf(r), connectionId: r.connectionId },
          `reaped ${whatWasReaped(r)} left by a previous daemon`,
        );
      for (const p of report.marked)
        log.warn(
          { pid: p.pid },
          "reaped a server's descendant left by a previous daemon (found by its run mark)",
        );
      for (const e of report.errors) log.warn({ file: options.stateFile }, e);
    }
    const oauth = createOAuthManager({
      store: new FileGrantStore(options.tokensPath ?? defaultTokensPath(options.home)),
      onWarning: (message) => log.warn({}, message),
    });
    // One recorder for every pool: a second one on the same file would erase the first's.
    const processes =
      options.pool === undefined && options.stateFile !== undefined
        ? new ProcessRecorder(options.stateFile, (message) => log.warn({}, message))
        : undefined;
    const pool =
      options.pool ??
      createPool({
        auth: oauth,
        ...(processes === undefined ? {} : { recorder: processes }),
        ...(options.drainDelayMs === undefined ? {} : { drainDelayMs: options.drainDelayMs }),
        ...(options.idleStopMs === undefined ? {} : { idleStopMs: options.idleStopMs }),
        ...(options.serverEnv ? { serverEnv: options.serverEnv } : {}),
        onWarning: (message) => log.warn({}, message),
      });
    // Our own store unless a seam is given; only our own file is watched.
    let store: ApprovalStore | undefined;
    let approvals: ApprovalStoreLike;
    let pins = options.pins;
    if (options.approvals !== undefined) approvals = options.approvals;
    else {
      store = await ApprovalStore.open({
        home: options.home,
        ...(options.env ? { env: options.env } : {}),
        onError: (err) => {
          // Malformed entries cost only themselves (ignored, kept): a warning, not an error.
          if (err.code === 'invalid-entries')
            log.warn({ file: err.file, code: err.code }, err.message);
          else log.error({ file: err.file, code: err.code }, err.message);
        },
      });
      approvals = approvalStoreAdapter(store);
      pins = await PinStore.open({ path: pinsFilePath(store.path) });
      if (pins.problem !== undefined) log.error({ file: pins.path }, pins.problem);
    }
    const daemon = new Daemon(options, pool, approvals, reaped, oauth, processes, pins);
    try {
      if (store !== undefined) {
        const own = store;
        daemon.#approvalsWatch = await watchApprovals({
          file: own.path,
          debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
          reload: () => own.reload(),
          reloaded: () => {
            log.info({ file: own.path }, 'approvals file changed: gating recomputed');
            for (const { session } of daemon.sessions()) session.approvalsChanged();
          },
        });
        if (pins !== undefined) {
          const own = pins;
          let changed = false;
          // The same watch as the approvals': a pins file repaired or removed by hand, or
          // written by another daemon, holds or lets through at once.
          daemon.#pinsWatch = await watchApprovals({
            file: own.path,
            debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
            reload: async () => {
              changed = await own.reload();
            },
            reloaded: () => {
              if (!changed) return;
              if (own.problem !== undefined) log.error({ file: own.path }, own.problem);
              else
                log.info(
                  { file: own.path },
                  'pins file changed: every listing held against it again',
                );
              for (const { session } of daemon.sessions()) session.pinsChanged();
            },
          });
        }
      }
      daemon.#defaultHandle = await daemon.#table.open(
        {
          ...sessionFlagsOf(options),
          ...(options.defaultSessionEnv ? { env: options.defaultSessionEnv } : {}),
        },
        { pinned: true, id: DEFAULT_SESSION_ID },
      );
    } catch (err) {
      await daemon.stop();
      throw err;
    }
    return daemon;
  }

  get defaultSession(): Session {
    if (!this.#defaultHandle) throw new Error('daemon not started');
    return this.#defaultHandle.session;
  }

  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  /**
   * Opens (or joins) a session. The daemon's own folder keeps its configuration: an opener of
   * it that gives no flags gets the daemon's (folder-flags.ts). An omitted ceiling (of either
   * kind) means the daemon's own ceiling: a CLI or gateway cannot widen what the daemon was
   * started with by leaving the flag out. `agent`: the agent this hold is for, listed by `get
   * sessions` while it is held.
   */
  open(spec: SessionSpec, agent?: AgentOpener): Promise<SessionHandle<Session>> {
    return this.#table.open(
      withFolderFlags(spec, sessionFlagsOf(this.options)),
      agent ? { agent } : {},
    );
  }

  /** The session with this id, if open. */
  session(id: string): Session | undefined {
    return this.#table.byId(id);
  }

  /** The session of a workspace (realpath match), the default one preferred. */
  findByWorkspace(workspace: string): Session | undefined {
    return this.#table.findByWorkspace(workspace);
  }

  /** Starts an OAuth login for `name` as `session` runs it; the URL goes to the user. */
  async loginStart(session: Session, name: string, redirectUri: string): Promise<LoginStart> {
    const target = session.oauthTarget(name);
    return this.oauth.beginLogin(target, redirectUri);
  }

  /**
   * Completes a login with the redirect's code; every session's servers waiting for a login
   * try again, and this resolves when they settled.
   */
  async loginFinish(state: string, code: string): Promise<void> {
    const target = await this.oauth.finishLogin(state, code);
    this.#log.info({}, 'OAuth login completed');
    await Promise.all(
      this.sessions().map(({ session }) => {
        session.events.record(
          'Normal',
          'LoggedIn',
          `session/${session.id}`,
          `signed in to ${redactUrl(target.serverUrl)}`,
        );
        return session.loginsChanged();
      }),
    );
  }

  /** Forgets the grant `name` uses; its connections (in every session) wait for a login. */
  async logout(session: Session, name: string): Promise<boolean> {
    const target = session.oauthTarget(name);
    const removed = await this.oauth.logout(target);
    this.#log.info({}, 'OAuth logout');
    if (removed)
      for (const { session: s } of this.sessions())
        s.events.record(
          'Normal',
          'LoggedOut',
          `session/${s.id}`,
          `signed out of ${redactUrl(target.serverUrl)}`,
        );
    // The pool tells holders after the connection closed (bounded: an HTTP session end waits
    // at most 2 s); answer once this session no longer serves it, so the caller sees the effect.
    const deadline = Date.now() + LOGOUT_SETTLE_MS;
    while (Date.now() < deadline && session.kind(MCP_SERVERS.kind).why(name).reason === 'Available')
      await new Promise((r) => setTimeout(r, 25));
    await Promise.all(this.sessions().map(({ session: s }) => s.settled()));
    return removed;
  }

  sessions(): SessionInfo<Session>[] {
    return this.#table.list();
  }

  onSessions(listener: (event: SessionTableEvent) => void): () => void {
    return this.#table.on(listener);
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#log.info({}, 'stopping: closing sessions');
    await this.#approvalsWatch?.close();
    await this.#pinsWatch?.close();
    await this.#table.closeAll();
    await this.#sources.close();
    this.#log.info({ connections: this.pool.stats().length }, 'stopping: closing connections');
    await this.pool.close();
    this.#log.info(
      { languageServers: this.lspPool.stats().length },
      'stopping: closing language servers',
    );
    await this.lspPool.close();
    await this.catalogs?.flushed();
    this.#log.info({}, 'stopped');
  }

  async #createSession(spec: NormalizedSpec, id: string): Promise<Session> {
    const o = this.options;
    const sharedSources = this.#sources;
    const session = await (o.createSession ?? createSession)({
      id,
      ...sessionFlagsOf(spec),
      home: o.home,
      ...(spec.env ? { env: spec.env.vars, envLabel: spec.env.label } : {}),
      ...(o.systemSettingsPath ? { systemSettingsPath: o.systemSettingsPath } : {}),
      ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
      pool: this.pool,
      lspPool: this.lspPool,
      approvals: this.approvals,
      ...(this.pins ? { pins: this.pins } : {}),
      ...(this.catalogs
        ? { catalogs: { store: this.catalogs, idleStopMs: o.idleStopMs ?? 0 } }
        : {}),
      sessionApprovals: new SessionApprovals(),
      // One SharedSources for all sessions: the user settings file is watched once.
      storeFactory: (storeOptions) => createSessionStore({ ...storeOptions, sharedSources }),
    });
    // What the session recorded while it started (a file that does not parse, say) is logged
    // too, then everything after: no event in between, as both run in this one turn.
    for (const e of session.eventList()) logEvent(this.#log, id, e);
    session.events.onEvent((e) => logEvent(this.#log, id, e));
    return session;
  }
}

/** The store as a session uses it: decisions, and what it has to say about the file. */
export function approvalStoreAdapter(store: ApprovalStore): ApprovalStoreLike {
  return {
    getState: (root, name, config) => store.getState(root, name, config),
    stateOf: (root, key) => store.stateOf(root, key),
    carriedFrom: (root, key) => store.carriedFrom(root, key),
    approve: (root, name, hash) => store.approve(root, name, hash),
    reject: (root, name, hash) => store.reject(root, name, hash),
    invalidEntries: (root) => store.invalidEntries(root),
  };
}

function logEvent(log: DaemonLog, session: string, e: McpEvent): void {
  const fields = { session, object: e.involvedObject, reason: e.reason, count: e.count };
  if (e.type === 'Warning') log.warn(fields, e.message);
  else log.info(fields, e.message);
}
