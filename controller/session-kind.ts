/**
 * One kind of server in a session (MCP servers, language servers): the session builds one
 * `SessionKind` per kind, from the kind's parts (`KindParts`: its descriptor and reconciler
 * adapter, its decisions, its `why` words, its objects), and the same queue, workers,
 * reconciler and decisions for each.
 *
 * Guarantees:
 * - The queue is the serialiser per kind: one name of a kind is never reconciled twice at once;
 *   a name queued while it is reconciled runs once more afterwards.
 * - Every name queued first lets a connect in progress for it stop when nothing of it may run
 *   now (ServerReconciler.preempt): a removed or refused server stuck in its handshake ends at
 *   once, not at its connect timeout.
 * - Nothing but a reconcile pass acquires a connection, and only with a ticket from admission.
 * - After every pass, success or not, the servers the pass left strictly pending are told
 *   (`onPendingApproval`, rule 17), then `afterPass`.
 * - Back-off is the session's (`backoffBaseMs`, `backoffCapMs`): a failed pass's retries (the
 *   queue) and a crashed server's reconnects (the reconciler) follow the same schedule.
 * - `approve`/`reject` decide nothing when the config changed after it was shown
 *   (StaleDecisionError, approval-decisions.ts); an MCP server's decision never admits a
 *   language server of the same name (the kinds' records differ, api/kinds.ts).
 * - `stop()` releases every lease of the kind for the session (they drain) and stops the
 *   workers; a pass waiting for a connection stops waiting at once.
 * - `diff` reads the desired state it is given and acquires nothing.
 */
import { messageOf, type ApprovalHash } from '../api/index.js';
import type { AnySubject } from '../approvals/index.js';
import type { DesiredState, SessionStore, SourceStatus } from '../informers/types.js';
import { decideAdmission, runtimeOf, type AdmissionContext } from '../reconcilers/admission.js';
import type { EventSink } from '../reconcilers/events.js';
import type { ServerObjectOptions } from '../reconcilers/server-object.js';
import type { KindServer, ServerKindAdapter } from '../reconcilers/server-kind.js';
import type { ServedLease, ServerRecord } from '../reconcilers/server-record.js';
import { ServerReconciler, type DesiredView } from '../reconcilers/server-reconciler.js';
import { why, type WhyAnswer, type WhyKind } from '../reconcilers/why.js';
import {
  ApprovalDecisions,
  type ApprovalStoreLike,
  type DecisionKind,
  type SessionApprovalsLike,
} from './approval-decisions.js';
import { UnknownServerError } from './errors.js';
import { ExponentialBackoffRateLimiter, exponentialDelay } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { diffKind, type DiffLine } from './reload-preview.js';
import { StderrFollower, stderrSnapshot, type StderrSnapshot } from './stderr-log.js';
import { Workers } from './workers.js';

/** A desired server that admission's one path takes (either kind). */
type Server = KindServer & Parameters<typeof runtimeOf>[0];

/** What differs between the kinds in a session: given once per kind. */
export interface KindParts<
  S extends Server,
  T extends { readonly connectionId: string },
  L extends ServedLease,
  Sub extends AnySubject,
  O,
> {
  /** The reconciler's part of the kind (its descriptor, admission, pool, publishing). */
  readonly adapter: ServerKindAdapter<S, T, L>;
  readonly decisions: DecisionKind<S, Sub>;
  readonly why: WhyKind<S>;
  /** Which files of a session hold servers of this kind (`SourceStatus.holds`). */
  readonly holds: SourceStatus['holds'];
  /** This kind's part of a desired state: its servers, its gating, the trust. */
  view(desired: DesiredState): DesiredView<S>;
  /** The context to admit a server of this kind of `view` with. */
  admissionContext(view: DesiredView<S>): AdmissionContext<S>;
  /** `why`'s limits of the kind: the ceiling it names and the settings' own allowlist. */
  whyLimits(desired: DesiredState): {
    readonly ceiling: readonly string[] | undefined;
    readonly settingsAllowed: readonly string[] | undefined;
    readonly settingsExcluded?: readonly string[] | undefined;
  };
  /** The object `get` shows of `server` (McpServer, LanguageServer). */
  object(
    server: S,
    record: ServerRecord<S['config'], L> | undefined,
    options: ServerObjectOptions,
  ): O;
  /** Approvals changed elsewhere: what of this kind is judged again. */
  approvalsChanged(kind: SessionKind<S, T, L, Sub, O>): void;
  /** Lets go of every connection of this kind the session holds. */
  releaseSession(): void;
}

export interface SessionKindDeps<S> {
  readonly sessionId: string;
  readonly workspace: string;
  readonly store: Pick<SessionStore, 'current' | 'refreshGating'>;
  readonly approvals: ApprovalStoreLike;
  readonly sessionApprovals: SessionApprovalsLike;
  readonly events: EventSink;
  now(): number;
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  readonly stableAfterMs: number;
  readonly concurrency: number;
  /** A server of the kind became promptable (told after the pass that left it pending). */
  onPendingApproval(server: S): void;
  /** A pass over `name` finished (success or not): statuses may have changed. */
  afterPass(name: string): void;
  /** Some of what `name` offers is held by its pins (told after the pass that held it). */
  onHeld?(name: string): void;
}

export class SessionKind<
  S extends Server,
  T extends { readonly connectionId: string },
  L extends ServedLease,
  Sub extends AnySubject,
  O,
> {
  readonly parts: KindParts<S, T, L, Sub, O>;
  readonly reconciler: ServerReconciler<S, T, L>;
  readonly decisions: ApprovalDecisions<S, Sub>;
  readonly #deps: SessionKindDeps<S>;
  readonly #queue: RateLimitingQueue<string>;
  readonly #workers: Workers<string>;

  constructor(parts: KindParts<S, T, L, Sub, O>, deps: SessionKindDeps<S>) {
    this.parts = parts;
    this.#deps = deps;
    const descriptor = parts.adapter.descriptor;
    // The one back-off of the kind (defaults in rate-limiters.ts): the queue's retries and the
    // reconciler's crash back-off read it here.
    const backoff = new ExponentialBackoffRateLimiter<string>({
      baseDelayMs: deps.backoffBaseMs,
      maxDelayMs: deps.backoffCapMs,
    });
    this.#queue = new RateLimitingQueue<string>({ rateLimiter: backoff });
    const pending: S[] = [];
    const held: string[] = [];
    this.reconciler = new ServerReconciler<S, T, L>({
      sessionId: deps.sessionId,
      admissionContext: (desired) => parts.admissionContext(desired),
      desired: () => parts.view(deps.store.current()),
      kind: parts.adapter,
      events: deps.events,
      enqueue: (name) => this.enqueue(name),
      onPendingApproval: (server) => pending.push(server),
      onHeld: (name) => held.push(name),
      now: () => deps.now(),
      backoff: (failures) => exponentialDelay(failures, backoff.baseDelayMs, backoff.maxDelayMs),
      stableAfterMs: deps.stableAfterMs,
      crashLoopAfter: 3,
    });
    this.decisions = new ApprovalDecisions<S, Sub>({
      kind: parts.decisions,
      sessionId: deps.sessionId,
      workspace: deps.workspace,
      approvals: deps.approvals,
      sessionApprovals: deps.sessionApprovals,
      events: deps.events,
      servers: () => parts.view(deps.store.current()).servers,
      refreshGating: () => deps.store.refreshGating(),
      enqueue: (name) => this.enqueue(name),
    });
    this.#workers = new Workers<string>({
      queue: this.#queue,
      concurrency: deps.concurrency,
      reconciler: {
        reconcile: async (name: string) => {
          try {
            return await this.reconciler.reconcile(name);
          } finally {
            // Rule 17: listeners hear of pending servers after the pass, success or not.
            for (const server of pending.splice(0)) deps.onPendingApproval(server);
            for (const heldName of held.splice(0)) deps.onHeld?.(heldName);
            deps.afterPass(name);
          }
        },
      },
      onError: (failure) =>
        deps.events.record(
          'Warning',
          'ConnectFailed',
          descriptor.objectOf(failure.key),
          `reconcile failed: ${messageOf(failure.error)}; retry in ${failure.retryAfterMs} ms`,
        ),
    });
  }

  /** Starts the workers and reconciles every configured server of the kind. */
  start(): void {
    this.#workers.start();
    for (const name of Object.keys(this.servers())) this.enqueue(name);
  }

  /** Queues `name` for a pass; a connect of it in progress stops if it may not run now. */
  enqueue(name: string): void {
    this.reconciler.preempt(name);
    this.#queue.add(name);
  }

  /** A reload: every name given is reconciled again, and given-up servers try again. */
  reload(names: Iterable<string>): void {
    this.reconciler.retryGivenUp();
    for (const name of names) this.enqueue(name);
  }

  /** Approvals changed elsewhere (the store re-read them): the kind's part judges again. */
  approvalsChanged(): void {
    this.parts.approvalsChanged(this);
  }

  /** Resolves when no pass of the kind is queued or running (delayed retries do not count). */
  settled(): Promise<void> {
    return this.#workers.whenIdle();
  }

  /** Before the workers stop: a pass waiting for a connection ends now. */
  close(): void {
    this.reconciler.close();
    this.parts.releaseSession();
  }

  /** Stops the workers; what a pass still acquired meanwhile is released (belt and braces). */
  async stop(): Promise<void> {
    await this.#workers.stop();
    this.parts.releaseSession();
  }

  /** Every configured server of the kind as its object, by name. */
  list(options: ServerObjectOptions = {}): O[] {
    return Object.keys(this.servers())
      .sort()
      .map((name) => this.get(name, options))
      .filter((o): o is NonNullable<typeof o> => o !== undefined);
  }

  get(name: string, options: ServerObjectOptions = {}): O | undefined {
    const servers = this.servers();
    const server = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (!server) return undefined;
    return this.parts.object(server, this.reconciler.record(name), options);
  }

  /** Why `name` is not Ready, and the fix (reconcilers/why.ts). */
  why(name: string): WhyAnswer {
    const desired = this.#deps.store.current();
    const view = this.parts.view(desired);
    return why(
      name,
      {
        ...this.parts.admissionContext(view),
        server: Object.hasOwn(view.servers, name) ? view.servers[name] : undefined,
        record: this.reconciler.record(name),
        removed: this.reconciler.wasRemoved(name),
        ...this.parts.whyLimits(desired),
      },
      this.parts.why,
    );
  }

  /** Last stderr lines of a server (for `describe` when it is not Ready). */
  stderrTail(name: string): readonly string[] {
    const rec = this.reconciler.record(name);
    if (!rec) return [];
    return rec.live ? rec.live.lease.stderrTail().map(rec.scrub) : rec.lastStderr;
  }

  /** What is kept of a server's stderr, and whether it runs or ever ran (`mcpctl logs`). */
  stderrLog(name: string): StderrSnapshot {
    return stderrSnapshot(this.reconciler.record(name));
  }

  /** A follower of a server's stderr (`mcpctl logs -f`), across its restarts. */
  followStderr(name: string): StderrFollower {
    return new StderrFollower(() => this.reconciler.record(name));
  }

  /**
   * The error for a name the session does not know, naming the closest names of the kind and,
   * when a file of the kind does not parse or validate, that file: the server may be in it.
   */
  unknown(name: string): UnknownServerError {
    const desired = this.#deps.store.current();
    const broken = desired.sources
      .filter((s) => s.errors.length > 0 && s.holds === this.parts.holds)
      .map((s) => s.file);
    return new UnknownServerError(
      name,
      Object.keys(this.parts.view(desired).servers),
      this.parts.adapter.descriptor,
      broken,
    );
  }

  /** The gated server `name` as a decision names it now (approval-decisions.ts). */
  subject(name: string, pin?: string): Sub {
    return this.decisions.subject(name, pin);
  }

  /** Approves the config of `name` whose approval hash is `hash`, the one the user was shown. */
  approve(name: string, hash: ApprovalHash, options: { sessionOnly?: boolean } = {}): Promise<Sub> {
    return this.decisions.approve(name, hash, options);
  }

  /** Rejects the config of `name` whose approval hash is `hash`. */
  reject(name: string, hash: ApprovalHash): Promise<Sub> {
    return this.decisions.reject(name, hash);
  }

  /**
   * What a reload to `next` (the files on disk now) would do to the kind's servers: the reload
   * preview's lines, named as the kind labels them. Connects nothing.
   */
  diff(next: DesiredState): DiffLine[] {
    const view = this.parts.view(next);
    const ctx = this.parts.admissionContext(view);
    const descriptor = this.parts.adapter.descriptor;
    return diffKind<S, S['config']>({
      servers: view.servers,
      recorded: this.reconciler.records().keys(),
      live: (name) => this.reconciler.record(name)?.live,
      decide: (server) => decideAdmission(server, ctx),
      runtime: (server) => {
        const r = runtimeOf(server, ctx);
        return r.runnable
          ? { runnable: true, connectionId: r.connectionId }
          : { runnable: false, why: r.problem };
      },
      changed: (live, server) => descriptor.changedFields(live, server.config, ctx.workspace),
      label: (name) => descriptor.label(name),
    });
  }

  /** The kind's servers in the session's desired state now. */
  servers(): Readonly<Record<string, S>> {
    return this.parts.view(this.#deps.store.current()).servers;
  }
}
