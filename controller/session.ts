/**
 * A session: one workspace's desired set, reconciled into leases from a (possibly shared) pool.
 *
 * Wiring (DESIGN §2, one direction): informer store → work queue → server reconciler → pool.
 * The store's changes only enqueue names; approvals only record a decision and enqueue; the
 * pool's callbacks only mark and enqueue. Nothing but a reconcile pass acquires a connection.
 *
 * Guarantees:
 * - `reload()` re-reads every source, enqueues every known name and resolves when settled, so
 *   a manual reload and the watcher can never race (both go through the queue).
 * - `diff()` reads the files on disk and acquires nothing.
 * - `pendingApproval` listeners hear of a server after the pass that left it pending finished.
 * - `loginRequired` listeners hear of a server after the pass that left it waiting for an OAuth
 *   login (Ready=False Unauthorized): once per stretch of waiting for one connection config;
 *   again only after it stopped waiting (signed in, disabled, edited) and waits anew.
 * - `approve`/`reject` take the approval hash of the config the user was shown and decide
 *   nothing when the current config has another one (StaleDecisionError): a config swapped
 *   while the user was asked is never the one approved.
 * - `close()` stops the watchers, drains the queue and releases every lease of the session.
 */
import { EventEmitter } from 'node:events';
import { realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import {
  isGatedScope,
  oauthTargetOf,
  setCondition,
  type OAuthTarget,
  type ApprovalHash,
  type ApprovalState,
  type Condition,
  type DesiredServer,
  type McpServer,
  type McpServerConfig,
  type SessionEnv,
  type SessionEnvironment,
  agentEnvironment,
  daemonEnvironment,
} from '../api/index.js';
import {
  approvalLookup,
  checkPin,
  subjectOf,
  summaryLine,
  summaryOf,
  type ApprovalSubject,
} from '../approvals/index.js';
import { createSessionStore } from '../informers/session-store.js';
import type { DesiredState, SessionStore, SourceStatus } from '../informers/types.js';
import type { AgentCaller, McpMessage, Pool } from '../pool/types.js';
import { admit } from '../reconcilers/admission.js';
import { Registry } from '../reconcilers/registry.js';
import { toMcpServer, type ResourceOptions } from '../reconcilers/resource.js';
import { ServerReconciler } from '../reconcilers/server-reconciler.js';
import { why, type WhyAnswer } from '../reconcilers/why.js';
import {
  attachAgent,
  type AgentAttachments,
  type SessionAgent,
  type SessionCaller,
  type SessionRequestOptions,
} from './agent-attachments.js';
import { diffReload, type DiffLine } from './diff.js';
import { SessionAdmission } from './session-admission.js';
import { SharedSettleWait } from './settle-wait.js';
import {
  NotGatedError,
  ServerUnavailableError,
  StaleDecisionError,
  UnknownServerError,
} from './errors.js';

// Re-exported so callers of the session find its errors beside it.
export {
  NotGatedError,
  ServerUnavailableError,
  StaleDecisionError,
  UnknownServerError,
  closest,
} from './errors.js';
export type { ApprovalSubject, SubjectSummary } from '../approvals/index.js';
export { summaryOf } from '../approvals/index.js';
export type { WhyAnswer } from '../reconcilers/why.js';
import { EventRecorder, type McpEvent } from './event-recorder.js';
import { ExponentialBackoffRateLimiter, exponentialDelay } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { Workers } from './workers.js';

/** The persisted approvals, as the session uses them (approvals/ implements it). */
export interface ApprovalStoreLike {
  getState(root: string, name: string, config: McpServerConfig): ApprovalState;
  /** Decisions name the approval hash of the config shown, never a config read later. */
  approve(root: string, name: string, hash: ApprovalHash): Promise<DecisionNotes | void>;
  reject(root: string, name: string, hash: ApprovalHash): Promise<DecisionNotes | void>;
  /** Malformed entries of the project at `root`: ignored for gating, kept in the file. */
  invalidEntries?(root: string): readonly InvalidApprovalEntry[];
}

/** What a decision's write has to tell the user (e.g. a malformed entry it kept aside). */
export interface DecisionNotes {
  readonly warnings: readonly string[];
}

export interface InvalidApprovalEntry {
  /** Its server; absent when the project's whole entry is malformed. */
  readonly name?: string;
  /** Names the file, the entry, the problem and the fix. */
  readonly message: string;
}

/** Approve-for-session decisions, in memory only (rule 10). */
export interface SessionApprovalsLike {
  approve(name: string, hash: ApprovalHash): void;
  isApproved(name: string, config: McpServerConfig): boolean;
  revoke(name: string): void;
}

export interface SessionOptions {
  readonly id?: string;
  readonly workspace: string;
  /**
   * The environment `${VAR}` in configs expands in and stdio servers start in (their `env` on
   * top): the agent's (sent by `mcpctl serve`), else the daemon's own (`process.env`). Never
   * shown; `envLabel` says whose it is.
   */
  readonly env?: SessionEnv;
  /** Whose environment `env` is, for `get sessions -o wide` ("daemon", "serve pid 4242"). */
  readonly envLabel?: string;
  readonly home: string;
  readonly ceiling?: readonly string[];
  readonly mcpConfigPath?: string;
  readonly systemSettingsPath?: string;
  readonly pool: Pool;
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
}

export class Session {
  readonly id: string;
  readonly workspace: string;
  readonly registry = new Registry();
  readonly events: EventRecorder;
  readonly ceiling: readonly string[] | undefined;
  readonly mcpConfigPath: string | undefined;
  readonly envLabel: string;
  conditions: Condition[] = [];

  readonly #opts: SessionOptions;
  readonly #now: () => number;
  readonly #emitter = new EventEmitter<SessionEvents>();
  readonly #store: SessionStore;
  readonly #queue: RateLimitingQueue<string>;
  readonly #workers: Workers<string>;
  readonly #reconciler: ServerReconciler;
  readonly #admission: SessionAdmission;
  readonly #env: SessionEnvironment;
  #lastSourceErrors = '';
  #lastInvalidApprovals = '';
  #started = false;
  #settleWatch = false;
  #closed = false;
  /** The connectionId each server waiting for a login was announced for (`loginRequired`). */
  readonly #loginAnnounced = new Map<string, string>();
  /** The pool's view of each agent that made a request here (see #asCaller). */
  readonly #callers = new WeakMap<SessionCaller, AgentCaller>();
  /** The agents' bounded wait for this session to settle: one per busy spell (settle-wait.ts). */
  readonly #settleWait = new SharedSettleWait(() => this.settled());

  constructor(opts: SessionOptions) {
    this.#opts = opts;
    this.id = opts.id ?? randomUUID();
    this.workspace = safeRealpath(opts.workspace);
    this.ceiling = opts.ceiling;
    this.mcpConfigPath = opts.mcpConfigPath;
    this.#env = opts.env ? agentEnvironment(opts.env) : daemonEnvironment(process.env);
    this.envLabel = opts.envLabel ?? 'daemon';
    this.#now = opts.now ?? Date.now;
    this.events = opts.events ?? new EventRecorder(1000, this.#now);
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
      workspace: root,
      home: opts.home,
      ...(opts.mcpConfigPath !== undefined ? { mcpConfigPath: opts.mcpConfigPath } : {}),
      ...(opts.systemSettingsPath !== undefined
        ? { systemSettingsPath: opts.systemSettingsPath }
        : {}),
      ...(opts.ceiling !== undefined ? { ceiling: opts.ceiling } : {}),
      ...(opts.debounceMs !== undefined ? { debounceMs: opts.debounceMs } : {}),
      approvals: lookup,
    });
    const pending: DesiredServer[] = [];
    this.#reconciler = new ServerReconciler({
      sessionId: this.id,
      admissionContext: (desired) => this.#admission.context(desired),
      desired: () => this.#store.current(),
      pool: opts.pool,
      registry: this.registry,
      events: this.events,
      enqueue: (name) => this.#queue.add(name),
      onPendingApproval: (server) => pending.push(server),
      now: this.#now,
      backoff: (failures) => exponentialDelay(failures, backoff.baseDelayMs, backoff.maxDelayMs),
      stableAfterMs: opts.stableAfterMs ?? 60_000,
      crashLoopAfter: 3,
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
            this.#announceLoginWait(name);
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
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    await this.#store.start();
    this.#store.onChange((change) => {
      if (change.configValidityChanged) this.#updateSessionConditions();
      for (const name of change.names) this.#queue.add(name);
    });
    this.#updateSessionConditions();
    this.#reportInvalidApprovals();
    this.#workers.start();
    for (const name of Object.keys(this.#store.current().servers)) this.#queue.add(name);
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

  servers(options: ResourceOptions = {}): McpServer[] {
    const desired = this.#store.current();
    return Object.keys(desired.servers)
      .sort()
      .map((name) => this.#resource(name, options))
      .filter((s): s is McpServer => s !== undefined);
  }

  get(name: string, options: ResourceOptions = {}): McpServer | undefined {
    return this.#resource(name, options);
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

  /**
   * Where `name` signs in with OAuth, as this session would run it (variables expanded). Only
   * an admitted, runnable server: a login contacts its URL, which a gated server may not do
   * before approval. Otherwise ServerUnavailableError with the `why` answer.
   */
  oauthTarget(name: string): OAuthTarget {
    const desired = this.#store.current();
    const server = desired.servers[name];
    if (!server) throw new UnknownServerError(name, Object.keys(desired.servers));
    const admission = admit(server, this.#admission.context(desired));
    if (!admission.admitted || !admission.runnable)
      throw new ServerUnavailableError(this.why(name));
    const target = oauthTargetOf(admission.ticket.config, admission.ticket.scope);
    if (!target)
      throw new ServerUnavailableError({
        name,
        reason: 'NoOAuth',
        message: `server ${name} does not sign in with OAuth (a local command, an Authorization header, oauth.enabled false, or another authProviderType)`,
        action: 'none',
      });
    return target;
  }

  /** An OAuth login or logout happened: servers waiting for a login try again; then settles. */
  async loginsChanged(): Promise<void> {
    if (!this.#started || this.#closed) return;
    for (const name of this.#reconciler.retryLogins()) this.#queue.add(name);
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
  #asCaller(caller: SessionCaller): AgentCaller {
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
   * registry, so the servers' requests and notifications reach it (see agent-attachments.ts).
   */
  attachAgent(agent: SessionAgent): AgentAttachments {
    return attachAgent(this.#opts.pool, this.registry, agent, this.workspace);
  }

  /**
   * The gated server `name` as a decision names it now: its current config and approval hash.
   * With `pin` (a `--hash` prefix), throws StaleDecisionError unless the pin names that config.
   * Unknown → UnknownServerError; not gated → NotGatedError.
   */
  approvalSubject(name: string, pin?: string): ApprovalSubject {
    const subject = subjectOf(this.#gatedServer(name));
    if (pin === undefined) return subject;
    const check = checkPin(subject.hash, pin);
    if (!check.ok) throw new StaleDecisionError(summaryOf(subject), check.problem);
    return subject;
  }

  /**
   * Approves the config of `name` whose approval hash is `hash` — the one the user was shown.
   * When the current config has another hash (it changed meanwhile) nothing is approved and
   * StaleDecisionError says what the current config is; the reconcile of the new config has
   * asked (or will ask) about it. Resolves with what was approved.
   */
  async approve(
    name: string,
    hash: ApprovalHash,
    options: { sessionOnly?: boolean } = {},
  ): Promise<ApprovalSubject> {
    const subject = this.#currentSubject(name, hash);
    if (options.sessionOnly) this.#opts.sessionApprovals.approve(name, hash);
    else this.#noteDecision(name, await this.#opts.approvals.approve(this.workspace, name, hash));
    this.events.record(
      'Normal',
      'Approved',
      `server/${name}`,
      `${options.sessionOnly ? 'approved for this session' : 'approved'}: ${summaryLine(summaryOf(subject))}`,
    );
    this.#store.refreshGating();
    this.#queue.add(name);
    return subject;
  }

  /** Rejects the config of `name` whose approval hash is `hash`; stale → as in `approve`. */
  async reject(name: string, hash: ApprovalHash): Promise<ApprovalSubject> {
    const subject = this.#currentSubject(name, hash);
    this.#opts.sessionApprovals.revoke(name);
    this.#noteDecision(name, await this.#opts.approvals.reject(this.workspace, name, hash));
    this.events.record(
      'Normal',
      'Rejected',
      `server/${name}`,
      `rejected: ${summaryLine(summaryOf(subject))}`,
    );
    this.#store.refreshGating();
    this.#queue.add(name);
    return subject;
  }

  /** The subject of `name` now, when its hash is `hash`; else StaleDecisionError. */
  #currentSubject(name: string, hash: ApprovalHash): ApprovalSubject {
    const subject = subjectOf(this.#gatedServer(name));
    if (subject.hash !== hash)
      throw new StaleDecisionError(
        summaryOf(subject),
        `the config of server ${name} changed after it was shown (the decision was for hash ${hash})`,
      );
    return subject;
  }

  /**
   * The approval store re-read decisions made elsewhere (another process, a hand edit):
   * recompute the gating; servers whose admission moved are reconciled.
   */
  approvalsChanged(): void {
    this.#reportInvalidApprovals();
    this.#store.refreshGating();
  }

  /** Warnings of a decision's write (a malformed entry it kept aside) become events. */
  #noteDecision(name: string, notes: DecisionNotes | void): void {
    for (const warning of notes?.warnings ?? [])
      this.events.record('Warning', 'InvalidApproval', `server/${name}`, warning);
    this.#reportInvalidApprovals();
  }

  /**
   * Malformed approvals entries of this project, as Warning events on their server (shown by
   * `describe server`) or on the session; once per change of the set, and once when fixed.
   */
  #reportInvalidApprovals(): void {
    const entries = this.#opts.approvals.invalidEntries?.(this.workspace) ?? [];
    const key = entries.map((e) => e.message).join('\n');
    if (key === this.#lastInvalidApprovals) return;
    const hadSome = this.#lastInvalidApprovals !== '';
    this.#lastInvalidApprovals = key;
    for (const entry of entries)
      this.events.record(
        'Warning',
        'InvalidApproval',
        entry.name === undefined ? `session/${this.id}` : `server/${entry.name}`,
        entry.message,
      );
    if (entries.length === 0 && hadSome)
      this.events.record(
        'Normal',
        'ApprovalsValid',
        `session/${this.id}`,
        'the approvals file has no malformed entry for this project any more',
      );
  }

  /** Re-reads every source, reconciles every known name, resolves when settled. */
  async reload(): Promise<void> {
    // Before start (or after close) there is nothing live to converge: a safe no-op.
    if (!this.#started || this.#closed) return;
    const names = await this.#store.resync();
    this.#updateSessionConditions();
    for (const name of names) this.#queue.add(name);
    await this.settled();
  }

  async diff(): Promise<DiffLine[]> {
    const next = await this.#store.peek();
    return diffReload({
      next,
      records: this.#reconciler.records(),
      admission: this.#admission.context(next),
    });
  }

  /** Resolves when no reconcile is queued or running (delayed retries do not count). */
  async settled(): Promise<void> {
    await this.#workers.whenIdle();
  }

  /**
   * `settled()`, bounded: resolves at the latest `boundMs` from now, and at once while a busy
   * spell of the session has already been waited for in full (by any caller): a server stuck
   * connecting costs the agents one wait, not one per agent and request (settle-wait.ts).
   */
  settledWithin(boundMs: number): Promise<void> {
    return this.#settleWait.wait(boundMs);
  }

  /**
   * After a pass of `name`: `loginRequired` when it now waits for a login it was not announced
   * for. A pass that retried after someone's login and still waits announces nothing new.
   */
  #announceLoginWait(name: string): void {
    const waiting = this.#reconciler.record(name)?.awaitingLogin;
    if (waiting === undefined) {
      this.#loginAnnounced.delete(name);
      return;
    }
    if (this.#loginAnnounced.get(name) === waiting) return;
    this.#loginAnnounced.set(name, waiting);
    this.#emitter.emit('loginRequired', name);
  }

  /** One `settled` event per burst of passes: what the serve bridge batches notifications on. */
  #announceWhenSettled(): void {
    if (this.#settleWatch) return;
    this.#settleWatch = true;
    void this.#workers.whenIdle().then(() => {
      this.#settleWatch = false;
      if (!this.#closed) this.#emitter.emit('settled');
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#store.close();
    await this.#workers.stop();
    this.#reconciler.close();
    this.#opts.pool.releaseSession(this.id);
    this.#emitter.removeAllListeners();
  }

  #gatedServer(name: string): DesiredServer {
    const server = this.#store.current().servers[name];
    if (!server) throw new UnknownServerError(name, Object.keys(this.#store.current().servers));
    if (!isGatedScope(server.scope))
      throw new NotGatedError(
        `server ${name} comes from ${server.scope} scope (${server.source}), which needs no approval`,
      );
    return server;
  }

  #resource(name: string, options: ResourceOptions): McpServer | undefined {
    const server = this.#store.current().servers[name];
    if (!server) return undefined;
    return toMcpServer(server, this.#reconciler.record(name), this.registry.get(name), options);
  }

  #updateSessionConditions(): void {
    const desired = this.#store.current();
    const now = new Date(this.#now());
    const errors = desired.sources.flatMap((s: SourceStatus) => s.errors);
    const message = errors
      .map((e) => `${e.file}${e.line ? `:${e.line}:${e.column}` : ''}: ${e.message}`)
      .join('; ');
    let next = setCondition(
      this.conditions,
      errors.length === 0
        ? { type: 'ConfigValid', status: 'True', reason: 'Valid', message: '' }
        : {
            type: 'ConfigValid',
            status: 'False',
            reason: errors.some((e) => e.kind === 'parse') ? 'ParseError' : 'InvalidConfig',
            message: `${message} (the last good content stays in force)`,
          },
      now,
    ).conditions;
    next = setCondition(
      next,
      desired.trusted
        ? { type: 'Trusted', status: 'True', reason: 'Trusted', message: '' }
        : {
            type: 'Trusted',
            status: 'False',
            reason: 'UntrustedFolder',
            message: `${this.workspace} is not trusted; no server connects`,
          },
      now,
    ).conditions;
    this.conditions = next;
    if (message !== this.#lastSourceErrors) {
      if (errors.length > 0)
        this.events.record('Warning', 'ConfigInvalid', `session/${this.id}`, message);
      else if (this.#lastSourceErrors !== '')
        this.events.record('Normal', 'ConfigValid', `session/${this.id}`, 'config is valid again');
      this.#lastSourceErrors = message;
    }
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
