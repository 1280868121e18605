/**
 * A session: one workspace's desired set, reconciled into leases from a (possibly shared) pool.
 *
 * Wiring (DESIGN §2, one direction): informer store → work queue → server reconciler → pool,
 * once per kind: the session builds one SessionKind (session-kind.ts: queue, workers,
 * reconciler, decisions) from each kind's parts (session-mcp-servers.ts,
 * session-language-servers.ts) and names the kind once on its face: `kind(LANGUAGE_SERVERS.kind)`.
 * The store's changes only enqueue names; approvals only record a decision and enqueue; the
 * pool's callbacks only mark and enqueue. Nothing but a reconcile pass acquires a connection.
 * Each concept behind it has its own file: decisions about gated servers
 * (approval-decisions.ts), OAuth logins (login-waits.ts), the context of every admission
 * judgement (session-admission.ts), the session's own conditions (session-conditions.ts).
 *
 * Guarantees:
 * - `reload()` re-reads every source, enqueues every known name of each kind and resolves when
 *   settled, so a manual reload and the watcher can never race (both go through the queues).
 * - `diff()` reads the files on disk and acquires nothing.
 * - `pendingApproval` listeners hear of a server after the pass that left it pending finished.
 * - `loginRequired` listeners hear of a server after the pass that left it waiting for an OAuth
 *   login (Ready=False Unauthorized): once per stretch of waiting (login-waits.ts).
 * - What each kind guarantees (one pass per name at a time, preempted connects, back-off,
 *   stale decisions refused) is its SessionKind's (session-kind.ts).
 * - `close()` stops the watchers, drains the queues and releases every lease of the session;
 *   a pass waiting for a connection stops waiting at once (the connection goes on without this
 *   session, and the pool drains or closes it).
 * - Language servers: `settled()` waits for both kinds, `reload()` reconciles both, a change of
 *   the Ready ones is a `registry` event of kind `LanguageServer` (so the gateway's list
 *   follows it); a status move of either kind is one `change` event naming the server and its
 *   kind (no name, no kind: the session's own conditions); a `pendingApproval` event carries a
 *   server of either kind (its `kind` says which).
 */
import { EventEmitter } from 'node:events';
import { realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import {
  LANGUAGE_SERVERS,
  MCP_SERVERS,
  SERVER_KINDS,
  type OAuthTarget,
  type Condition,
  type ServerKind,
  type SessionEnvironment,
  type SessionFlags,
  agentEnvironment,
  heldLine,
  sessionFlagsOf,
  daemonEnvironment,
} from '../api/index.js';
import { approvalLookup, lspApprovalLookup } from '../approvals/index.js';
import { createSessionStore } from '../informers/session-store.js';
import type { DesiredState, SessionStore } from '../informers/types.js';
import type { McpMessage, PoolCaller } from '../pool/types.js';
import { Registry, type RegistryEntry } from '../reconcilers/registry.js';
import { isCatalogList } from '../pool/catalog.js';
import { NotLiveError } from '../pool/errors.js';
import type { HeldDefinition, PinReview } from '../reconcilers/pins.js';
import {
  attachAgent,
  type SessionAttachment,
  type SessionAgent,
  type SessionCaller,
  type SessionRequestOptions,
} from './session-attachment.js';
import type { ReloadPreview } from './reload-preview.js';
import { LoginWaits } from './login-waits.js';
import { SessionAdmission } from './session-admission.js';
import { createLspPool, type LspPool } from '../pool/lsp-pool.js';
import {
  askLanguageServer,
  type LspAnswer,
  type LspArgs,
  type LspQuestion,
} from './lsp-questions.js';
import type { LspTarget } from './lsp-target.js';
import { SessionKind } from './session-kind.js';
import { mcpServerParts } from './session-mcp-servers.js';
import { LanguageServerParts, type LanguageServerKind } from './session-language-servers.js';
import { SessionConditions, configWarnings } from './session-conditions.js';
import { SessionPins } from './session-pins.js';
import { SharedSettleWait } from './settle-wait.js';
import { NothingHeldError, ServerUnavailableError } from './errors.js';
import { EventRecorder, type McpEvent } from './event-recorder.js';

// Re-exported so callers of the session find its errors and kinds beside it.
export {
  NotGatedError,
  NothingHeldError,
  ServerUnavailableError,
  StaleDecisionError,
  UnknownServerError,
  closest,
} from './errors.js';
export type { ApprovalSubject, ServerKind, SubjectSummary } from '../approvals/index.js';
export { summaryOf } from '../approvals/index.js';
export type { WhyAnswer } from '../reconcilers/why.js';
import type { WhyAnswer } from '../reconcilers/why.js';
export type { LanguageServerKind } from './session-language-servers.js';
export type { SessionKind } from './session-kind.js';
import type {
  AnySessionKind,
  McpServerKind,
  SessionEvents,
  SessionKinds,
  SessionOptions,
} from './session-options.js';
export type { McpServerKind, SessionEvents, SessionKinds, SessionOptions };

export class Session {
  readonly id: string;
  readonly workspace: string;
  readonly registry = new Registry();
  readonly events: EventRecorder;
  /** The flags it was opened with (its workspace the realpath), as `get sessions` shows them. */
  readonly flags: SessionFlags;
  readonly envLabel: string;

  readonly #opts: SessionOptions;
  readonly #now: () => number;
  readonly #emitter = new EventEmitter<SessionEvents>();
  readonly #store: SessionStore;
  readonly #admission: SessionAdmission;
  readonly #logins: LoginWaits;
  readonly #conditions: SessionConditions;
  readonly #env: SessionEnvironment;
  readonly #kinds: SessionKinds;
  readonly #lspParts: LanguageServerParts;
  readonly #pins: SessionPins | undefined;
  readonly #lspWhy = (name: string): WhyAnswer => this.#kinds[LANGUAGE_SERVERS.kind].why(name);
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
    this.flags = sessionFlagsOf({ ...opts, workspace: this.workspace });
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
    const root = this.workspace;
    this.#admission = new SessionAdmission({
      sessionId: this.id,
      workspace: root,
      env: this.#env,
      approvals: opts.approvals,
      sessionApprovals: opts.sessionApprovals,
    });
    this.#store = (opts.storeFactory ?? createSessionStore)({
      ...sessionFlagsOf({ ...opts, workspace: root }),
      home: opts.home,
      ...(opts.systemSettingsPath !== undefined
        ? { systemSettingsPath: opts.systemSettingsPath }
        : {}),
      ...(opts.debounceMs !== undefined ? { debounceMs: opts.debounceMs } : {}),
      approvals: approvalLookup(opts.approvals, root, opts.sessionApprovals),
      lspApprovals: lspApprovalLookup(opts.approvals, root, opts.sessionApprovals),
    });
    // What every kind's queue, workers, reconciler and decisions are built with.
    const common = {
      sessionId: this.id,
      workspace: root,
      store: this.#store,
      approvals: opts.approvals,
      sessionApprovals: opts.sessionApprovals,
      events: this.events,
      now: () => this.#now(),
      backoffBaseMs: opts.backoffBaseMs,
      backoffCapMs: opts.backoffCapMs,
      stableAfterMs: opts.stableAfterMs ?? 60_000,
      concurrency: opts.concurrency ?? 4,
    };
    this.#pins =
      opts.pins &&
      new SessionPins({
        store: opts.pins,
        workspace: root,
        server: (name) => this.#store.current().kinds[MCP_SERVERS.kind].servers[name],
        onSaveFailed: (name, message) =>
          this.events.record(
            'Warning',
            'PinsUnreadable',
            MCP_SERVERS.objectOf(name),
            `the pins of server ${name} were not saved (${message}); they hold until the daemon stops`,
          ),
        now: () => new Date(this.#now()),
      });
    const mcp: McpServerKind = new SessionKind(
      mcpServerParts({
        sessionId: this.id,
        pool: opts.pool,
        registry: this.registry,
        admission: this.#admission,
        ceiling: opts.ceiling,
        ...(this.#pins ? { pins: this.#pins } : {}),
        ...(opts.catalogs ? { catalogs: opts.catalogs } : {}),
      }),
      {
        ...common,
        onPendingApproval: (server) => this.#emitter.emit('pendingApproval', server),
        onHeld: (name) => this.#emitter.emit('toolsHeld', name),
        afterPass: (name) => {
          this.#logins.afterPass(name);
          this.#emitter.emit('change', name, MCP_SERVERS.kind);
          this.#announceWhenSettled();
        },
      },
    );
    this.#logins = new LoginWaits({
      desired: () => this.#store.current(),
      admission: this.#admission,
      why: (name) => mcp.why(name),
      reconciler: mcp.reconciler,
      enqueue: (name) => mcp.enqueue(name),
      announce: (name) => this.#emitter.emit('loginRequired', name),
    });
    // A server that only started or stopped (idle) lists the same: no list_changed for it.
    this.registry.onChange((name, visible) => {
      if (visible) this.#emitter.emit('registry', name, MCP_SERVERS.kind);
    });
    this.#ownLspPool = opts.lspPool ? undefined : createLspPool({ drainDelayMs: 0 });
    this.#lspParts = new LanguageServerParts({
      sessionId: this.id,
      workspace: root,
      pool: opts.lspPool ?? (this.#ownLspPool as LspPool),
      admission: this.#admission,
      onReadyChange: (name) => this.#emitter.emit('registry', name, LANGUAGE_SERVERS.kind),
    });
    const lsp: LanguageServerKind = new SessionKind(this.#lspParts, {
      ...common,
      onPendingApproval: (server) => this.#emitter.emit('pendingApproval', server),
      afterPass: (name) => {
        this.#emitter.emit('change', name, LANGUAGE_SERVERS.kind);
        this.#announceWhenSettled();
      },
    });
    this.#kinds = { [MCP_SERVERS.kind]: mcp, [LANGUAGE_SERVERS.kind]: lsp };
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    await this.#store.start();
    const { [MCP_SERVERS.kind]: mcp, [LANGUAGE_SERVERS.kind]: lsp } = this.#kinds;
    this.#store.onChange((change) => {
      if (change.configValidityChanged) this.#updateSessionConditions();
      for (const kind of SERVER_KINDS)
        for (const name of change.names[kind]) this.#kinds[kind].enqueue(name);
    });
    this.#updateSessionConditions();
    mcp.decisions.reportInvalid();
    mcp.start();
    lsp.start();
  }

  /**
   * The session's servers of `kind`: list, get, why, stderr, decisions, the unknown-name error
   * (session-kind.ts). The one place the session's face names a kind.
   */
  kind<K extends ServerKind>(kind: K): SessionKinds[K] {
    return this.#kinds[kind];
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

  /**
   * Every configured language server, with its connection when Ready, else why not: what
   * `ask` routes by extension over (lsp-questions.ts); askers see them as LspServerViews.
   */
  lspTargets(): LspTarget[] {
    // The store's map itself, not the kind's view of it, and one bound `why`: this is on every
    // lsp_* call's path, and allocates nothing more than it did.
    return this.#lspParts.targets(
      this.#store.current().kinds[LANGUAGE_SERVERS.kind].servers,
      this.#lspWhy,
    );
  }

  /**
   * A language-server question, answered by the Ready server of its file's extension (every
   * Ready one for a question about the workspace): lsp-questions.ts.
   */
  ask<Q extends LspQuestion>(
    question: Q,
    args: LspArgs<Q>,
    signal: AbortSignal,
  ): Promise<LspAnswer<Q>> {
    return askLanguageServer(this.lspTargets(), question, args, signal);
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
    const { caller, ...rest } = options;
    const routed = caller ? { ...rest, caller: this.#asCaller(caller) } : rest;
    const catalogs = this.#opts.catalogs;
    let entry = this.registry.get(server);
    if (!entry) throw new ServerUnavailableError(this.#kinds[MCP_SERVERS.kind].why(server));
    if (entry.idle) {
      // A list the catalog holds is answered without a process (issue #34).
      const listed =
        catalogs && !message.params?.cursor
          ? catalogs.store.answer(entry.connectionId, message.method)
          : undefined;
      if (listed) return listed;
      entry = await this.#startIdle(server);
    }
    const served = entry;
    try {
      const result = await this.#opts.pool.request(served.key, message, routed);
      if (catalogs && isCatalogList(message.method) && !message.params?.cursor)
        catalogs.store.rememberList(served.connectionId, message.method, result);
      return result;
    } catch (err) {
      // Stopped for idling between the lookup and the send: it starts again, and the request
      // is sent once more (it never reached the server: the pool had no live connection).
      if (!(err instanceof NotLiveError) || !catalogs) throw err;
      return this.#opts.pool.request((await this.#startIdle(server)).key, message, routed);
    }
  }

  /** Starts an idle server (a normal pass, admission and all) and returns what serves it. */
  async #startIdle(server: string): Promise<RegistryEntry> {
    const mcp = this.#kinds[MCP_SERVERS.kind];
    try {
      await mcp.reconciler.demand(server);
    } catch {
      throw new ServerUnavailableError(mcp.why(server));
    }
    const entry = this.registry.get(server);
    if (!entry || entry.idle) throw new ServerUnavailableError(mcp.why(server));
    return entry;
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

  /** What the pins of MCP server `name` hold back or show escaped now (absent: not served). */
  pinReview(name: string): PinReview | undefined {
    return this.registry.get(name)?.pins;
  }

  /** The pins file, when this session pins (for `describe`). */
  get pinsFile(): string | undefined {
    return this.#pins?.file;
  }

  /**
   * The user decided about what `name`'s pins hold: `accept` lets the held definitions, and
   * those shown escaped, reach agents as they are; `reject` keeps the held ones out without
   * asking again. `digests`: only those (what the user was shown); a definition that changed
   * again since is not decided. Resolves with what was decided, once the session settled.
   */
  async decideTools(
    name: string,
    decision: 'accept' | 'reject',
    digests?: readonly string[],
  ): Promise<readonly HeldDefinition[]> {
    const entry = this.registry.get(name);
    if (!entry) throw new ServerUnavailableError(this.#kinds[MCP_SERVERS.kind].why(name));
    const review = entry.pins;
    if (!this.#pins || !review) throw new NothingHeldError(`server ${name} is not pinned`);
    const candidates = decision === 'accept' ? [...review.held, ...review.escaped] : review.held;
    const decided = candidates.filter((h) => digests === undefined || digests.includes(h.digest));
    if (decided.length === 0)
      throw new NothingHeldError(
        digests === undefined
          ? `server ${name} has no held tools or prompts: what it lists is what was accepted`
          : `what server ${name} holds changed since it was shown; nothing was decided: look again with 'mcpctl describe server/${name}'`,
      );
    await this.#pins.decide(name, entry.connectionId, decided, decision);
    this.events.record(
      'Normal',
      decision === 'accept' ? 'ToolsAccepted' : 'ToolsRejected',
      MCP_SERVERS.objectOf(name),
      `${decision === 'accept' ? 'accepted' : 'rejected'} ${decided.map(heldLine).join(', ')}`,
    );
    this.#kinds[MCP_SERVERS.kind].enqueue(name);
    await this.settled();
    return decided;
  }

  /**
   * Attaches an agent connection to every Ready server of the session, following the
   * registry, so the servers' requests and notifications reach it (see session-attachment.ts).
   */
  attachAgent(agent: SessionAgent): SessionAttachment {
    return attachAgent(this.#opts.pool, this.registry, agent, this.workspace, (server) =>
      this.#startIdle(server).then(() => undefined),
    );
  }

  /**
   * The pins file changed outside this daemon (repaired, removed, another daemon's pins): every
   * MCP server is published again, its listing held against the pins as they are now.
   */
  pinsChanged(): void {
    if (!this.#started || this.#closed || !this.#pins) return;
    const mcp = this.#kinds[MCP_SERVERS.kind];
    for (const name of Object.keys(mcp.servers())) mcp.enqueue(name);
  }

  /** The approval store re-read decisions made elsewhere: the gating follows them. */
  approvalsChanged(): void {
    for (const kind of this.#allKinds()) kind.approvalsChanged();
  }

  /** Re-reads every source, reconciles every known name, resolves when settled. */
  async reload(): Promise<void> {
    // Before start (or after close) there is nothing live to converge: a safe no-op.
    if (!this.#started || this.#closed) return;
    const known = await this.#store.resync();
    this.#updateSessionConditions();
    const { [MCP_SERVERS.kind]: mcp, [LANGUAGE_SERVERS.kind]: lsp } = this.#kinds;
    mcp.reload(known[MCP_SERVERS.kind]);
    // Every language server, as it was and is now.
    lsp.reload(new Set([...Object.keys(lsp.servers()), ...lsp.reconciler.records().keys()]));
    await this.settled();
  }

  /**
   * What a reload would do, MCP servers then language servers, and what the files on disk
   * have wrong; reads files, connects nothing.
   */
  async diff(): Promise<ReloadPreview> {
    const next = await this.#store.peek();
    return {
      lines: this.#allKinds().flatMap((kind) => kind.diff(next)),
      configWarnings: configWarnings(next.sources),
    };
  }

  /**
   * Resolves when no reconcile of either kind is queued or running (delayed retries do not
   * count).
   */
  async settled(): Promise<void> {
    await Promise.all(this.#allKinds().map((kind) => kind.settled()));
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
    for (const kind of this.#allKinds()) kind.close();
    await Promise.all(this.#allKinds().map((kind) => kind.stop()));
    await this.#ownLspPool?.close();
    this.#emitter.removeAllListeners();
  }

  /** The kinds in the order the session reports them: MCP servers, then language servers. */
  #allKinds(): readonly AnySessionKind[] {
    return SERVER_KINDS.map((kind) => this.#kinds[kind]);
  }

  /** The session's conditions follow the desired state; listeners hear of the change. */
  #updateSessionConditions(): void {
    this.#conditions.update(this.#store.current());
    this.#emitter.emit('change', undefined, undefined);
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
