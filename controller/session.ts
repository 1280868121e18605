/**
 * A session: one workspace's desired set, reconciled into leases from a (possibly shared) pool.
 *
 * Wiring (DESIGN §2, one direction): informer store → work queue → server reconciler → pool.
 * The store's changes only enqueue names; approvals only record a decision and enqueue; the
 * pool's callbacks only mark and enqueue. Nothing but a reconcile pass acquires a connection.
 * Each concept behind it has its own file: decisions about gated servers
 * (approval-decisions.ts), OAuth logins (login-waits.ts), the context of every admission
 * judgement (session-admission.ts), the session's own conditions (session-conditions.ts), its
 * language servers (session-language-servers.ts: the same reconciler, a queue of their own).
 *
 * Why one file of ~640 lines: what stays is the wiring of those parts and the session's one
 * public face for both kinds (what the daemon, the CLI methods, the gateway and the tests
 * call; language servers' own part lives in session-language-servers.ts); cutting the face
 * apart would only add forwarding, and `request` is on every tool call's path.
 *
 * Guarantees:
 * - `reload()` re-reads every source, enqueues every known name and resolves when settled, so
 *   a manual reload and the watcher can never race (both go through the queue).
 * - `diff()` reads the files on disk and acquires nothing.
 * - `pendingApproval` listeners hear of a server after the pass that left it pending finished.
 * - `loginRequired` listeners hear of a server after the pass that left it waiting for an OAuth
 *   login (Ready=False Unauthorized): once per stretch of waiting (login-waits.ts).
 * - `approve`/`reject` decide nothing when the config changed after it was shown
 *   (StaleDecisionError, approval-decisions.ts).
 * - Back-off is configured once (`backoffBaseMs`, `backoffCapMs`): a failed reconcile's retries
 *   (the queue) and a crashed server's reconnects (the reconciler) follow the same schedule.
 * - Every name queued first lets a connect in progress for it stop when nothing of it may run
 *   now (ServerReconciler.preempt): a removed or refused server stuck in its handshake ends at
 *   once, not at its connect timeout.
 * - `close()` stops the watchers, drains the queue and releases every lease of the session;
 *   a pass waiting for a connection stops waiting at once (the connection goes on without this
 *   session, and the pool drains or closes it).
 * - Language servers: `settled()` waits for both kinds, `reload()` reconciles both, a change of
 *   the Ready ones is a `registry` event named `languageserver/NAME` (so the gateway's list
 *   follows it); their statuses change with `languageServerChange`, their prompts with
 *   `languageServerPendingApproval`.
 */
import { EventEmitter } from 'node:events';
import { realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import {
  type OAuthTarget,
  type ApprovalHash,
  type Condition,
  type DesiredLanguageServer,
  type DesiredServer,
  type LanguageServer,
  type McpServer,
  type SessionEnv,
  type SessionEnvironment,
  type SessionFlags,
  agentEnvironment,
  sessionFlagsOf,
  daemonEnvironment,
} from '../api/index.js';
import {
  approvalLookup,
  lspApprovalLookup,
  type ApprovalSubject,
  type LanguageServerSubject,
  type ServerKind,
} from '../approvals/index.js';
import { createSessionStore } from '../informers/session-store.js';
import type { DesiredState, SessionStore } from '../informers/types.js';
import type { McpMessage, Pool, PoolCaller } from '../pool/types.js';
import { Registry } from '../reconcilers/registry.js';
import { toMcpServer, type ServerObjectOptions } from '../reconcilers/server-object.js';
import { ServerReconciler } from '../reconcilers/server-reconciler.js';
import { mcpKind } from '../reconcilers/server-kind.js';
import { why, type WhyAnswer } from '../reconcilers/why.js';
import {
  attachAgent,
  type SessionAttachment,
  type SessionAgent,
  type SessionCaller,
  type SessionRequestOptions,
} from './session-attachment.js';
import {
  ApprovalDecisions,
  type ApprovalStoreLike,
  type SessionApprovalsLike,
} from './approval-decisions.js';
import { diffReload, type ReloadPreview } from './reload-preview.js';
import { LoginWaits } from './login-waits.js';
import { SessionAdmission } from './session-admission.js';
import { createLspPool, type LspPool } from './lsp-pool.js';
import type { LspTarget } from './lsp-target.js';
import { SessionLanguageServers } from './session-language-servers.js';
import { SessionConditions, configWarnings } from './session-conditions.js';
import { SharedSettleWait } from './settle-wait.js';
import { ServerUnavailableError, UnknownServerError } from './errors.js';

// Re-exported so callers of the session find its errors beside it.
export {
  NotGatedError,
  ServerUnavailableError,
  StaleDecisionError,
  UnknownServerError,
  closest,
} from './errors.js';
export type { ApprovalSubject, ServerKind, SubjectSummary } from '../approvals/index.js';
export { summaryOf } from '../approvals/index.js';
export type { WhyAnswer } from '../reconcilers/why.js';
import { EventRecorder, type McpEvent } from './event-recorder.js';
import { ExponentialBackoffRateLimiter, exponentialDelay } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { Workers } from './workers.js';

export interface SessionOptions extends SessionFlags {
  readonly id?: string;
  /**
   * The environment `${VAR}` in configs expands in and stdio servers start in (their `env` on
   * top): the agent's (sent by `mcpctl serve`), else the daemon's own (`process.env`). Never
   * shown; `envLabel` says whose it is.
   */
  readonly env?: SessionEnv;
  /** Whose environment `env` is, for `get sessions -o wide` ("daemon", "serve pid 4242"). */
  readonly envLabel?: string;
  readonly home: string;
  readonly systemSettingsPath?: string;
  readonly pool: Pool;
  /**
   * The language-server pool (the daemon's, shared by every session). Absent: the session makes
   * one of its own and closes it with itself.
   */
  readonly lspPool?: LspPool;
  readonly approvals: ApprovalStoreLike;
  readonly sessionApprovals: SessionApprovalsLike;
  readonly debounceMs?: number;
  readonly concurrency?: number;
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  readonly stableAfterMs?: number;
  readonly events?: EventRecorder;
  readonly now?: () => number;
  /** Builds the informer store; the daemon passes one that shares the user-settings watcher. */
  readonly storeFactory?: typeof createSessionStore;
}

export interface SessionEvents {
  /** A server's status or the session's conditions changed. */
  change: [name: string | undefined];
  /** A gated server became promptable (strictly pending). */
  pendingApproval: [server: DesiredServer];
  /** A server started waiting for an OAuth login (Ready=False Unauthorized). */
  loginRequired: [name: string];
  /** A server's tools or prompts changed in the registry. */
  registry: [name: string];
  /** The queue went idle after a burst of reconcile passes (once per burst). */
  settled: [];
  /** A language server's status changed (after a pass over it). */
  languageServerChange: [name: string];
  /** A project language server became promptable (strictly pending). */
  languageServerPendingApproval: [server: DesiredLanguageServer];
}

/** Which kind a decision or a look-up is about; default MCP servers. */
export interface KindOption {
  readonly kind?: ServerKind;
}

export class Session {
  readonly id: string;
  readonly workspace: string;
  readonly registry = new Registry();
  readonly events: EventRecorder;
  readonly ceiling: readonly string[] | undefined;
  readonly mcpConfigPath: string | undefined;
  readonly lspCeiling: readonly string[] | undefined;
  readonly lspConfigPath: string | undefined;
  readonly envLabel: string;

  readonly #opts: SessionOptions;
  readonly #now: () => number;
  readonly #emitter = new EventEmitter<SessionEvents>();
  readonly #store: SessionStore;
  readonly #queue: RateLimitingQueue<string>;
  readonly #workers: Workers<string>;
  readonly #reconciler: ServerReconciler;
  readonly #admission: SessionAdmission;
  readonly #decisions: ApprovalDecisions;
  readonly #logins: LoginWaits;
  readonly #conditions: SessionConditions;
  readonly #env: SessionEnvironment;
  readonly #lsp: SessionLanguageServers;
  /** The session's own language-server pool, when none was given. */
  readonly #ownLspPool: LspPool | undefined;
  #started = false;
  #settleWatch = false;
  #closed = false;
  /** The pool's view of each agent that made a request here (see #asCaller). */
  readonly #callers = new WeakMap<SessionCaller, PoolCaller>();
  /** The agents' bounded wait for this session to settle: one per busy spell (settle-wait.ts). */
  readonly #settleWait = new SharedSettleWait(() => this.settled());

  constructor(opts: SessionOptions) {
    this.#opts = opts;
    this.id = opts.id ?? randomUUID();
    this.workspace = safeRealpath(opts.workspace);
    this.ceiling = opts.ceiling;
    this.mcpConfigPath = opts.mcpConfigPath;
    this.lspCeiling = opts.lspCeiling;
    this.lspConfigPath = opts.lspConfigPath;
    this.#env = opts.env ? agentEnvironment(opts.env) : daemonEnvironment(process.env);
    this.envLabel = opts.envLabel ?? 'daemon';
    this.#now = opts.now ?? Date.now;
    this.events = opts.events ?? new EventRecorder(1000, this.#now);
    this.#conditions = new SessionConditions({
      sessionId: this.id,
      workspace: this.workspace,
      events: this.events,
      now: this.#now,
    });
    // The one back-off of the session (defaults in rate-limiters.ts): the queue's retries and
    // the reconciler's crash back-off read it here.
    const backoff = new ExponentialBackoffRateLimiter<string>({
      baseDelayMs: opts.backoffBaseMs,
      maxDelayMs: opts.backoffCapMs,
    });
    this.#queue = new RateLimitingQueue<string>({ rateLimiter: backoff });
    const root = this.workspace;
    this.#admission = new SessionAdmission({
      sessionId: this.id,
      workspace: root,
      env: this.#env,
      approvals: opts.approvals,
      sessionApprovals: opts.sessionApprovals,
    });
    const lookup = approvalLookup(opts.approvals, root, opts.sessionApprovals);
    this.#store = (opts.storeFactory ?? createSessionStore)({
      ...sessionFlagsOf({ ...opts, workspace: root }),
      home: opts.home,
      ...(opts.systemSettingsPath !== undefined
        ? { systemSettingsPath: opts.systemSettingsPath }
        : {}),
      ...(opts.debounceMs !== undefined ? { debounceMs: opts.debounceMs } : {}),
      approvals: lookup,
      lspApprovals: lspApprovalLookup(opts.approvals, root, opts.sessionApprovals),
    });
    const pending: DesiredServer[] = [];
    this.#reconciler = new ServerReconciler({
      sessionId: this.id,
      admissionContext: (desired) => this.#admission.context(desired),
      desired: () => this.#store.current(),
      kind: mcpKind(opts.pool, this.registry),
      events: this.events,
      enqueue: (name) => this.#enqueue(name),
      onPendingApproval: (server) => pending.push(server),
      now: this.#now,
      backoff: (failures) => exponentialDelay(failures, backoff.baseDelayMs, backoff.maxDelayMs),
      stableAfterMs: opts.stableAfterMs ?? 60_000,
      crashLoopAfter: 3,
    });
    this.#decisions = new ApprovalDecisions({
      sessionId: this.id,
      workspace: root,
      approvals: opts.approvals,
      sessionApprovals: opts.sessionApprovals,
      events: this.events,
      servers: () => this.#store.current().servers,
      refreshGating: () => this.#store.refreshGating(),
      enqueue: (name) => this.#enqueue(name),
    });
    this.#logins = new LoginWaits({
      desired: () => this.#store.current(),
      admission: this.#admission,
      why: (name) => this.why(name),
      reconciler: this.#reconciler,
      enqueue: (name) => this.#enqueue(name),
      announce: (name) => this.#emitter.emit('loginRequired', name),
    });
    this.#workers = new Workers<string>({
      queue: this.#queue,
      concurrency: opts.concurrency ?? 4,
      reconciler: {
        reconcile: async (name: string) => {
          try {
            return await this.#reconciler.reconcile(name);
          } finally {
            // Rule 17: listeners hear of pending servers after the pass, success or not.
            for (const server of pending.splice(0)) this.#emitter.emit('pendingApproval', server);
            this.#logins.afterPass(name);
            this.#emitter.emit('change', name);
            this.#announceWhenSettled();
          }
        },
      },
      onError: (failure) =>
        this.events.record(
          'Warning',
          'ConnectFailed',
          `server/${failure.key}`,
          `reconcile failed: ${errorText(failure.error)}; retry in ${failure.retryAfterMs} ms`,
        ),
    });
    this.registry.onChange((name) => this.#emitter.emit('registry', name));
    this.#ownLspPool = opts.lspPool ? undefined : createLspPool({ drainDelayMs: 0 });
    this.#lsp = new SessionLanguageServers({
      sessionId: this.id,
      workspace: root,
      store: this.#store,
      pool: opts.lspPool ?? (this.#ownLspPool as LspPool),
      admission: this.#admission,
      approvals: opts.approvals,
      sessionApprovals: opts.sessionApprovals,
      events: this.events,
      now: this.#now,
      backoffBaseMs: opts.backoffBaseMs,
      backoffCapMs: opts.backoffCapMs,
      stableAfterMs: opts.stableAfterMs ?? 60_000,
      concurrency: opts.concurrency ?? 4,
      ceiling: undefined,
      afterPass: (name) => {
        this.#emitter.emit('languageServerChange', name);
        this.#announceWhenSettled();
      },
      onPendingApproval: (server) => this.#emitter.emit('languageServerPendingApproval', server),
      onReadyChange: (name) => this.#emitter.emit('registry', `languageserver/${name}`),
    });
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    await this.#store.start();
    this.#store.onChange((change) => {
      if (change.configValidityChanged) this.#updateSessionConditions();
      for (const name of change.names) this.#enqueue(name);
      for (const name of change.languageServers) this.#lsp.enqueue(name);
    });
    this.#updateSessionConditions();
    this.#decisions.reportInvalid();
    this.#workers.start();
    for (const name of Object.keys(this.#store.current().servers)) this.#enqueue(name);
    this.#lsp.start();
  }

  /** Queues `name` for a pass; a connect of it in progress stops if it may not run now. */
  #enqueue(name: string): void {
    this.#reconciler.preempt(name);
    this.#queue.add(name);
  }

  /** The session's own conditions: ConfigValid and Trusted (session-conditions.ts). */
  get conditions(): Condition[] {
    return this.#conditions.current;
  }

  /**
   * One sentence per file of the session that does not parse or validate, saying where, the
   * fix, and what of it is in force meanwhile (session-conditions.ts); empty when all are good.
   */
  configWarnings(): string[] {
    return configWarnings(this.#store.current().sources);
  }

  /**
   * The error for a name the session does not know, naming the closest names of its kind and,
   * when a file of that kind does not parse or validate, that file: the server may be in it.
   */
  unknownServer(name: string, options: KindOption = {}): UnknownServerError {
    const desired = this.#store.current();
    const lsp = options.kind === 'LanguageServer';
    const broken = desired.sources
      .filter((s) => s.errors.length > 0 && s.holds === (lsp ? 'languageServers' : 'servers'))
      .map((s) => s.file);
    return new UnknownServerError(
      name,
      Object.keys(lsp ? desired.languageServers : desired.servers),
      lsp ? 'language server' : 'server',
      broken,
    );
  }

  on<E extends keyof SessionEvents>(
    event: E,
    listener: (...args: SessionEvents[E]) => void,
  ): () => void {
    // Node's EventEmitter generics cannot follow E here; SessionEvents keeps the pairs honest.
    const l = listener as never;
    this.#emitter.on(event, l);
    return () => this.#emitter.off(event, l);
  }

  desired(): DesiredState {
    return this.#store.current();
  }

  servers(options: ServerObjectOptions = {}): McpServer[] {
    const desired = this.#store.current();
    return Object.keys(desired.servers)
      .sort()
      .map((name) => this.#object(name, options))
      .filter((s): s is McpServer => s !== undefined);
  }

  get(name: string, options: ServerObjectOptions = {}): McpServer | undefined {
    return this.#object(name, options);
  }

  /** Last stderr lines of a server (for `describe` when it is not Ready). */
  stderrTail(name: string): readonly string[] {
    const rec = this.#reconciler.record(name);
    if (!rec) return [];
    return rec.live ? rec.live.lease.stderrTail().map(rec.scrub) : rec.lastStderr;
  }

  why(name: string): WhyAnswer {
    const desired = this.#store.current();
    return why(name, {
      ...this.#admission.context(desired),
      server: desired.servers[name],
      record: this.#reconciler.record(name),
      removed: this.#reconciler.wasRemoved(name),
      ceiling: this.ceiling,
      settingsAllowed: desired.mcp?.allowed,
    });
  }

  /** The session's language servers as LanguageServer objects (`get languageservers`). */
  languageServers(options: ServerObjectOptions = {}): LanguageServer[] {
    return this.#lsp.list(options);
  }

  getLanguageServer(name: string, options: ServerObjectOptions = {}): LanguageServer | undefined {
    return this.#lsp.get(name, options);
  }

  /** Why language server `name` is not Ready, and the fix (reconcilers/why.ts). */
  whyLanguageServer(name: string): WhyAnswer {
    return this.#lsp.why(name);
  }

  /** Last stderr lines of a language server (for `describe` when it is not Ready). */
  languageServerStderrTail(name: string): readonly string[] {
    return this.#lsp.stderrTail(name);
  }

  /**
   * Every configured language server, with its connection when Ready, else why not: what the
   * gateway's `lsp_*` tools route by extension with (lsp-target.ts).
   */
  lspTargets(): LspTarget[] {
    return this.#lsp.targets();
  }

  /** Where `name` signs in with OAuth (login-waits.ts): admitted and runnable servers only. */
  oauthTarget(name: string): OAuthTarget {
    return this.#logins.target(name);
  }

  /** An OAuth login or logout happened: servers waiting for a login try again; then settles. */
  async loginsChanged(): Promise<void> {
    if (!this.#started || this.#closed) return;
    this.#logins.retry();
    await this.settled();
  }

  eventList(): McpEvent[] {
    return this.events.list();
  }

  /**
   * Sends any MCP request to the connection serving `server` now and resolves with the
   * server's result untouched; unavailable → ServerUnavailableError with the `why` answer.
   */
  async request(
    server: string,
    message: McpMessage,
    options: SessionRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const entry = this.registry.get(server);
    if (!entry) throw new ServerUnavailableError(this.why(server));
    const { caller, ...rest } = options;
    return this.#opts.pool.request(
      entry.key,
      message,
      caller ? { ...rest, caller: this.#asCaller(caller) } : rest,
    );
  }

  /**
   * The pool's view of `caller`, with this session's workspace: one object per agent, as the
   * pool tells agents apart by identity (several calls of one agent are one agent's calls).
   */
  #asCaller(caller: SessionCaller): PoolCaller {
    let mine = this.#callers.get(caller);
    if (!mine) {
      mine = {
        label: caller.label,
        workspace: this.workspace,
        canAnswer: (m) => caller.canAnswer(m),
        request: (m, o) => caller.request(m, o),
      };
      this.#callers.set(caller, mine);
    }
    return mine;
  }

  /**
   * Attaches an agent connection to every Ready server of the session, following the
   * registry, so the servers' requests and notifications reach it (see session-attachment.ts).
   */
  attachAgent(agent: SessionAgent): SessionAttachment {
    return attachAgent(this.#opts.pool, this.registry, agent, this.workspace);
  }

  /**
   * The gated server `name` as a decision names it now (approval-decisions.ts); with
   * `{ kind: 'LanguageServer' }`, the language server `name`.
   */
  approvalSubject(
    name: string,
    pin: string | undefined,
    options: { kind: 'LanguageServer' },
  ): LanguageServerSubject;
  approvalSubject(name: string, pin?: string, options?: KindOption): ApprovalSubject;
  approvalSubject(
    name: string,
    pin?: string,
    options: KindOption = {},
  ): ApprovalSubject | LanguageServerSubject {
    if (options.kind === 'LanguageServer') return this.#lsp.subject(name, pin);
    return this.#decisions.subject(name, pin);
  }

  /**
   * Approves the config of `name` whose approval hash is `hash`, the one the user was shown.
   * `kind: 'LanguageServer'`: the language server `name` (never the MCP server of that name).
   */
  approve(
    name: string,
    hash: ApprovalHash,
    options: { sessionOnly?: boolean; kind: 'LanguageServer' },
  ): Promise<LanguageServerSubject>;
  approve(
    name: string,
    hash: ApprovalHash,
    options?: { sessionOnly?: boolean } & KindOption,
  ): Promise<ApprovalSubject>;
  approve(
    name: string,
    hash: ApprovalHash,
    options: { sessionOnly?: boolean } & KindOption = {},
  ): Promise<ApprovalSubject | LanguageServerSubject> {
    const { kind, ...rest } = options;
    if (kind === 'LanguageServer') return this.#lsp.approve(name, hash, rest);
    return this.#decisions.approve(name, hash, rest);
  }

  /** Rejects the config of `name` whose approval hash is `hash` (of the kind given). */
  reject(
    name: string,
    hash: ApprovalHash,
    options: { kind: 'LanguageServer' },
  ): Promise<LanguageServerSubject>;
  reject(name: string, hash: ApprovalHash, options?: KindOption): Promise<ApprovalSubject>;
  reject(
    name: string,
    hash: ApprovalHash,
    options: KindOption = {},
  ): Promise<ApprovalSubject | LanguageServerSubject> {
    if (options.kind === 'LanguageServer') return this.#lsp.reject(name, hash);
    return this.#decisions.reject(name, hash);
  }

  /** The approval store re-read decisions made elsewhere: the gating follows them. */
  approvalsChanged(): void {
    this.#decisions.changed();
    this.#lsp.approvalsChanged();
  }

  /** Re-reads every source, reconciles every known name, resolves when settled. */
  async reload(): Promise<void> {
    // Before start (or after close) there is nothing live to converge: a safe no-op.
    if (!this.#started || this.#closed) return;
    const { servers } = await this.#store.resync();
    this.#updateSessionConditions();
    for (const name of servers) this.#enqueue(name);
    // Every language server, as it was and is now, through its own queue.
    this.#lsp.reload();
    await this.settled();
  }

  /**
   * What a reload would do, MCP servers then language servers, and what the files on disk
   * have wrong; reads files, connects nothing.
   */
  async diff(): Promise<ReloadPreview> {
    const next = await this.#store.peek();
    return {
      lines: [
        ...diffReload({
          next,
          records: this.#reconciler.records(),
          admission: this.#admission.context(next),
        }),
        ...this.#lsp.diff(next),
      ],
      configWarnings: configWarnings(next.sources),
    };
  }

  /**
   * Resolves when no reconcile of either kind is queued or running (delayed retries do not
   * count).
   */
  async settled(): Promise<void> {
    await Promise.all([this.#workers.whenIdle(), this.#lsp.settled()]);
  }

  /**
   * `settled()`, bounded: resolves at the latest `boundMs` from now, and at once while a busy
   * spell of the session has already been waited for in full (by any caller): a server stuck
   * connecting costs the agents one wait, not one per agent and request (settle-wait.ts).
   */
  settledWithin(boundMs: number): Promise<void> {
    return this.#settleWait.wait(boundMs);
  }

  /** One `settled` event per burst of passes: what the gateway batches notifications on. */
  #announceWhenSettled(): void {
    if (this.#settleWatch) return;
    this.#settleWatch = true;
    void this.settled().then(() => {
      this.#settleWatch = false;
      if (!this.#closed) this.#emitter.emit('settled');
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#store.close();
    // Before the workers stop: a pass waiting for a connection (a server stuck in its
    // handshake) ends now instead of at its connect timeout.
    this.#reconciler.close();
    this.#opts.pool.releaseSession(this.id);
    await Promise.all([this.#workers.stop(), this.#lsp.stop()]);
    // What a pass still acquired meanwhile (it releases what it gets after close; belt and braces).
    this.#opts.pool.releaseSession(this.id);
    await this.#ownLspPool?.close();
    this.#emitter.removeAllListeners();
  }

  #object(name: string, options: ServerObjectOptions): McpServer | undefined {
    const server = this.#store.current().servers[name];
    if (!server) return undefined;
    return toMcpServer(server, this.#reconciler.record(name), this.registry.get(name), options);
  }

  /** The session's conditions follow the desired state; listeners hear of the change. */
  #updateSessionConditions(): void {
    this.#conditions.update(this.#store.current());
    this.#emitter.emit('change', undefined);
  }
}

export async function createSession(opts: SessionOptions): Promise<Session> {
  const session = new Session(opts);
  await session.start();
  return session;
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
