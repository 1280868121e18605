/**
 * A session's language servers (issue #24): the second kind, reconciled by the same
 * ServerReconciler as its MCP servers, with a work queue and workers of its own (the queue is
 * the serialiser per kind), admitted by the same admission function and pooled by the daemon's
 * language-server pool.
 *
 * Guarantees:
 * - Nothing but a reconcile pass acquires a process, and only with a LanguageServerTicket from
 *   admission: a project (`.lsp.json`) server never starts before it is approved, in any path.
 * - An unchanged connectionId keeps the very same process: a `settings` edit is sent as
 *   `workspace/didChangeConfiguration`, an `extensionToLanguage` edit changes routing only.
 *   Any other edit replaces the process, old first (Recreate: two servers on one folder's index
 *   may corrupt it).
 * - A crash restarts with the session's back-off while `restartOnCrash` (default true) and at
 *   most `maxRestarts` (default 5) consecutive failures; past that Ready=False
 *   CrashLoopBackOff says it gave up, and an edit of the entry or a reload retries.
 * - The set of Ready language servers is what `targets()` routes to; every change of it is told
 *   (`onReadyChange`), so the gateway's tool list follows it.
 * - Approvals are the language server's own (approvals/kinds.ts): an MCP server's decision
 *   never admits one of the same name.
 */
import {
  changedLanguageServerFields,
  jsonEqual,
  lspApprovalHashOf,
  workspaceFolderOf,
  type ApprovalHash,
  type DesiredLanguageServer,
  type LanguageServer,
  type LanguageServerConfig,
} from '../api/index.js';
import type { LanguageServerSubject } from '../approvals/index.js';
import type { DesiredState, SessionStore } from '../informers/types.js';
import type { LanguageServerTicket } from '../pool/ticket.js';
import {
  admitLanguageServer,
  decideAdmission,
  languageServerRuntimeOf,
} from '../reconcilers/admission.js';
import type { EventSink } from '../reconcilers/events.js';
import { toLanguageServer, type ServerObjectOptions } from '../reconcilers/server-object.js';
import type { ServerKindAdapter } from '../reconcilers/server-kind.js';
import { ServerReconciler, type DesiredView } from '../reconcilers/server-reconciler.js';
import { LSP_WHY, why, type WhyAnswer } from '../reconcilers/why.js';
import {
  ApprovalDecisions,
  LSP_DECISIONS,
  type ApprovalStoreLike,
  type SessionApprovalsLike,
} from './approval-decisions.js';
import type { LanguageServerLease, LspPool } from '../pool/lsp-pool.js';
import type { LspTarget } from './lsp-target.js';
import { ExponentialBackoffRateLimiter, exponentialDelay } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { diffKind, type DiffLine } from './reload-preview.js';
import type { SessionAdmission } from './session-admission.js';
import { Workers } from './workers.js';

export const DEFAULT_MAX_RESTARTS = 5;

/** A Ready language server as the session routes to it. */
interface ReadyServer {
  readonly key: string;
  readonly lease: LanguageServerLease;
  readonly extensionToLanguage: Readonly<Record<string, string>>;
}

export interface SessionLanguageServersDeps {
  readonly sessionId: string;
  readonly workspace: string;
  readonly store: Pick<SessionStore, 'current' | 'refreshGating'>;
  readonly pool: LspPool;
  readonly admission: SessionAdmission;
  readonly approvals: ApprovalStoreLike;
  readonly sessionApprovals: SessionApprovalsLike;
  readonly events: EventSink;
  now(): number;
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  readonly stableAfterMs: number;
  readonly concurrency: number;
  /** The `--allowed-lsp-server-names` ceiling, for `why`; default the LSP gating's allowlist. */
  readonly ceiling: readonly string[] | undefined;
  /** A pass over `name` finished (success or not): statuses may have changed. */
  afterPass(name: string): void;
  /** A project language server became promptable (after the pass that left it pending). */
  onPendingApproval(server: DesiredLanguageServer): void;
  /** The set of Ready language servers (or one's connection) changed. */
  onReadyChange(name: string): void;
}

export class SessionLanguageServers {
  readonly #deps: SessionLanguageServersDeps;
  readonly #queue: RateLimitingQueue<string>;
  readonly #workers: Workers<string>;
  readonly #reconciler: ServerReconciler<
    DesiredLanguageServer,
    LanguageServerTicket,
    LanguageServerLease
  >;
  readonly #decisions: ApprovalDecisions<DesiredLanguageServer, LanguageServerSubject>;
  readonly #ready = new Map<string, ReadyServer>();

  constructor(deps: SessionLanguageServersDeps) {
    this.#deps = deps;
    const backoff = new ExponentialBackoffRateLimiter<string>({
      baseDelayMs: deps.backoffBaseMs,
      maxDelayMs: deps.backoffCapMs,
    });
    this.#queue = new RateLimitingQueue<string>({ rateLimiter: backoff });
    const pending: DesiredLanguageServer[] = [];
    this.#reconciler = new ServerReconciler({
      sessionId: deps.sessionId,
      admissionContext: (desired) => deps.admission.languageServerContext(desired),
      desired: () => this.#desired(),
      kind: this.#kind(),
      events: deps.events,
      enqueue: (name) => this.enqueue(name),
      onPendingApproval: (server) => pending.push(server),
      now: () => deps.now(),
      backoff: (failures) => exponentialDelay(failures, backoff.baseDelayMs, backoff.maxDelayMs),
      stableAfterMs: deps.stableAfterMs,
      crashLoopAfter: 3,
    });
    this.#decisions = new ApprovalDecisions({
      kind: LSP_DECISIONS,
      sessionId: deps.sessionId,
      workspace: deps.workspace,
      approvals: deps.approvals,
      sessionApprovals: deps.sessionApprovals,
      events: deps.events,
      servers: () => deps.store.current().languageServers,
      refreshGating: () => deps.store.refreshGating(),
      enqueue: (name) => this.enqueue(name),
    });
    this.#workers = new Workers<string>({
      queue: this.#queue,
      concurrency: deps.concurrency,
      reconciler: {
        reconcile: async (name: string) => {
          try {
            return await this.#reconciler.reconcile(name);
          } finally {
            for (const server of pending.splice(0)) deps.onPendingApproval(server);
            deps.afterPass(name);
          }
        },
      },
      onError: (failure) =>
        deps.events.record(
          'Warning',
          'ConnectFailed',
          `languageserver/${failure.key}`,
          `reconcile failed: ${failure.error instanceof Error ? failure.error.message : String(failure.error)}; retry in ${failure.retryAfterMs} ms`,
        ),
    });
  }

  /** Starts the workers and reconciles every configured language server. */
  start(): void {
    this.#workers.start();
    for (const name of Object.keys(this.#deps.store.current().languageServers)) this.enqueue(name);
  }

  /** Queues `name` for a pass; a connect of it in progress stops if it may not run now. */
  enqueue(name: string): void {
    this.#reconciler.preempt(name);
    this.#queue.add(name);
  }

  /** A reload: every known name (configured now or earlier), given-up servers try again. */
  reload(): void {
    this.#reconciler.retryGivenUp();
    const names = new Set([
      ...Object.keys(this.#deps.store.current().languageServers),
      ...this.#reconciler.records().keys(),
    ]);
    for (const name of names) this.enqueue(name);
  }

  /** Approvals changed elsewhere: every project language server is judged again. */
  approvalsChanged(): void {
    for (const server of Object.values(this.#deps.store.current().languageServers))
      if (server.scope === 'project') this.enqueue(server.name);
  }

  settled(): Promise<void> {
    return this.#workers.whenIdle();
  }

  /**
   * Releases every lease of the session (they drain) and stops the workers; a pass waiting for
   * a connection stops waiting at once.
   */
  async stop(): Promise<void> {
    this.#reconciler.close();
    this.#deps.pool.releaseSession(this.#deps.sessionId);
    await this.#workers.stop();
    // What a pass still acquired meanwhile (it releases what it gets after close; belt and braces).
    this.#deps.pool.releaseSession(this.#deps.sessionId);
  }

  list(options: ServerObjectOptions = {}): LanguageServer[] {
    return Object.keys(this.#deps.store.current().languageServers)
      .sort()
      .map((name) => this.get(name, options))
      .filter((s): s is LanguageServer => s !== undefined);
  }

  get(name: string, options: ServerObjectOptions = {}): LanguageServer | undefined {
    const servers = this.#deps.store.current().languageServers;
    const server = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (!server) return undefined;
    const record = this.#reconciler.record(name);
    const live = record?.live?.lease.connection.workspaceFolder;
    const folder = workspaceFolderOf(server.config, this.#deps.workspace);
    return toLanguageServer(
      server,
      record,
      live ?? (folder.ok ? folder.folder : undefined),
      options,
    );
  }

  why(name: string): WhyAnswer {
    const desired = this.#desired();
    return why(
      name,
      {
        ...this.#deps.admission.languageServerContext(desired),
        server: Object.hasOwn(desired.servers, name) ? desired.servers[name] : undefined,
        record: this.#reconciler.record(name),
        removed: this.#reconciler.wasRemoved(name),
        ceiling: this.#deps.ceiling ?? desired.gating.allowed,
        settingsAllowed: undefined,
      },
      LSP_WHY,
    );
  }

  /**
   * What a reload would do to the language servers of `next` (the files on disk now): the
   * reload preview's lines, named `languageserver/NAME`. Connects nothing.
   */
  diff(next: DesiredState): DiffLine[] {
    const desired = {
      servers: next.languageServers,
      gating: next.lspGating,
      trusted: next.trusted,
    };
    const ctx = this.#deps.admission.languageServerContext(desired);
    return diffKind<DesiredLanguageServer, LanguageServerConfig>({
      servers: next.languageServers,
      recorded: this.#reconciler.records().keys(),
      live: (name) => this.#reconciler.record(name)?.live,
      decide: (server) => decideAdmission(server, ctx),
      runtime: (server) => {
        const r = languageServerRuntimeOf(server, ctx);
        return r.runnable
          ? { runnable: true, connectionId: r.connectionId }
          : { runnable: false, why: r.problem };
      },
      // Only what replaces the process counts (settings and extensionToLanguage never do).
      changed: (live, server) => changedLanguageServerFields(live, server.config),
      label: (name) => `languageserver/${name}`,
    });
  }

  /** Every configured language server, with its connection when Ready, else why not. */
  targets(): LspTarget[] {
    const servers = this.#deps.store.current().languageServers;
    return Object.keys(servers)
      .sort()
      .map((name) => {
        const ready = this.#ready.get(name);
        const extensionToLanguage = servers[name].config.extensionToLanguage ?? {};
        const workspace = this.#deps.workspace;
        if (ready)
          return { name, extensionToLanguage, workspace, connection: ready.lease.connection };
        const answer = this.why(name);
        return {
          name,
          extensionToLanguage,
          workspace,
          connection: undefined,
          unavailable: { reason: answer.reason, message: answer.message, action: answer.action },
        };
      });
  }

  stderrTail(name: string): readonly string[] {
    const rec = this.#reconciler.record(name);
    if (!rec) return [];
    return rec.live ? rec.live.lease.stderrTail().map(rec.scrub) : rec.lastStderr;
  }

  subject(name: string, pin?: string): LanguageServerSubject {
    return this.#decisions.subject(name, pin);
  }

  approve(
    name: string,
    hash: ApprovalHash,
    options: { sessionOnly?: boolean } = {},
  ): Promise<LanguageServerSubject> {
    return this.#decisions.approve(name, hash, options);
  }

  reject(name: string, hash: ApprovalHash): Promise<LanguageServerSubject> {
    return this.#decisions.reject(name, hash);
  }

  #desired(): DesiredView<DesiredLanguageServer> {
    const d = this.#deps.store.current();
    return { servers: d.languageServers, gating: d.lspGating, trusted: d.trusted };
  }

  /** The language server kind of the reconciler (server-kind.ts). */
  #kind(): ServerKindAdapter<DesiredLanguageServer, LanguageServerTicket, LanguageServerLease> {
    const ready = this.#ready;
    const tell = (name: string): void => this.#deps.onReadyChange(name);
    return {
      objectPrefix: 'languageserver',
      admit: admitLanguageServer,
      approvalHash: (server) => lspApprovalHashOf(server.config),
      pool: this.#deps.pool,
      publish(name, lease, config) {
        const before = ready.get(name);
        const extensionToLanguage = config.extensionToLanguage ?? {};
        ready.set(name, { key: lease.key, lease, extensionToLanguage });
        if (
          before?.key !== lease.key ||
          before.lease !== lease ||
          !jsonEqual(before.extensionToLanguage, extensionToLanguage)
        )
          tell(name);
      },
      unpublish(name) {
        if (ready.delete(name)) tell(name);
      },
      update(lease, before: LanguageServerConfig, after: LanguageServerConfig) {
        if (!jsonEqual(before.settings ?? null, after.settings ?? null))
          lease.connection.setSettings(after.settings);
        if (!jsonEqual(before.extensionToLanguage ?? {}, after.extensionToLanguage ?? {}))
          lease.connection.documents.setExtensionToLanguage(after.extensionToLanguage ?? {});
      },
      readyMessage: (name) => {
        const extensions = Object.keys(ready.get(name)?.extensionToLanguage ?? {}).sort();
        return extensions.length > 0 ? `serves ${extensions.join(', ')}` : 'serves no extension';
      },
      connectedNote: (lease) => lease.connection.stats().server ?? 'language server',
      // Two processes of one server on one folder may corrupt each other's index: old first.
      updateStrategy: () => 'Recreate',
      restartPolicy: (server) => ({
        restartOnCrash: server.config.restartOnCrash ?? true,
        maxRestarts: server.config.maxRestarts ?? DEFAULT_MAX_RESTARTS,
        retryHint: `edit its entry in ${server.source}, or run 'mcpctl reload', to try again`,
      }),
    };
  }
}
