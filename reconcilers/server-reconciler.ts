/**
 * The per-server reconcile: level-based, for one name, looking only at desired and actual now
 * (DESIGN §2, §4 rules 11–13, §5). One class for both kinds of server: what differs (admission's
 * runtime and ticket, the pool, what the session shows of a lease, update and restart policy)
 * is the kind adapter's (server-kind.ts); a session runs one instance per kind.
 *
 * Why one file of ~520 lines: it is one state machine (admit → keep / roll / recreate → publish,
 * and the crash and preempt paths that re-enter it) over one record; its phases share the
 * record's invariants line by line, and how each outcome shows is already apart
 * (server-status.ts). Cut further, each part would need the whole record and the pass's state.
 *
 * Guarantees:
 * - A connection is acquired only with a ticket from admission; a refused server is torn down.
 * - Unchanged connectionId → the same lease is kept; filter-only edits re-filter in place.
 * - RollingUpdate connects the new config first, swaps the registry entry in one step, then
 *   releases the old lease; if the new one fails, the old one keeps serving (RolloutFailed).
 * - Every release the config decides (removed, refused, the old side of an update, Recreate)
 *   tells the pool `config`, so the process ends unless another session holds it; only
 *   closing the session releases with `sessionClosed`, which drains (DESIGN §5).
 * - A failed config is not tried again before its backoff window ends, and a server that
 *   needs a login not before a login; an edited config tries at once.
 * - The queue guarantees one pass per name at a time; pool callbacks only mark and enqueue.
 * - A connect in progress does not outlive the config's decision to run nothing for a name:
 *   `preempt(name)` (the session calls it with every enqueue) stops a pass's wait for a
 *   connection when a pass would connect nothing now (removed, refused, not runnable): the pool
 *   lets go of it as a `config` release, so its process ends unless another session wants it,
 *   and the pass ends without a failure; the pass queued by the same change then does what the
 *   config says. (An edited config does not preempt: the running pass ends as it would, and the
 *   queued one rolls to the new config, so edits coalesce.)
 * - How each outcome shows (conditions, events, backoff, flooding): server-status.ts.
 * - A message over the size limit from a server (the pool dropped it; its request failed) is a
 *   Warning event `MessageTooLarge` per message, saying what it was; the connection stays Ready.
 * - A kind with a restart policy (language servers) is given up past it and not tried again
 *   until its entry is edited or `retryGivenUp()` (a reload) says so.
 * - Start on demand, stop when idle (a kind with `idle`, a server with an idle time): an
 *   admitted server whose catalog is known is served from it (Ready, reason `Idle`) and runs
 *   nothing until `demand(name)`; the pass that sees a demand connects with the same ticket as
 *   any other (admission unchanged: a refused server is never started, on demand or not) and
 *   settles the demand when it ends. The pool stopping it for idling (`idle` cause) is not a
 *   failure: no backoff, no restart counted; the catalog serves again. A server with a failure
 *   in its history, or never seen, connects as before.
 */
import type { DesiredServer, Gating, ReadyReason } from '../api/index.js';
import type { Lease, LostCause, ReleaseReason } from '../pool/types.js';
import type { OversizedLine } from '../pool/traffic.js';
import type { AdmissionTicket } from '../pool/ticket.js';
import type { AdmissionContext, RefusedDecision } from './admission.js';
import type { Reconciler, Result } from './reconcile.js';
import { ServerRecord, type LiveConnection, type ServedLease } from './server-record.js';
import type { KindServer, ServerKindAdapter } from './server-kind.js';
import { connectFailed, lost, markReady, type StatusDeps } from './server-status.js';
import { Demands, settle } from './on-demand.js';

/** A pass's connect in progress: the connectionId it waits for, and how to stop the wait. */
interface Connecting {
  readonly connectionId: string;
  readonly abort: AbortController;
}

/** The slice of the session's desired state a reconcile reads, for one kind. */
export interface DesiredView<S = DesiredServer> {
  readonly servers: Readonly<Record<string, S>>;
  readonly gating: Gating;
  readonly trusted: boolean;
}

export interface ServerReconcilerDeps<
  S extends KindServer = DesiredServer,
  T extends { readonly connectionId: string } = AdmissionTicket,
  L extends ServedLease = Lease,
> extends StatusDeps {
  readonly sessionId: string;
  /**
   * The session's admission context with the trust and gating of `desired` (its approvals, its
   * environment: what `${VAR}` in a config expands to, what servers start in). The session
   * builds it, in one place for every judgement it makes.
   */
  admissionContext(desired: DesiredView<S>): AdmissionContext<S>;
  desired(): DesiredView<S>;
  /** The kind reconciled: admission, pool, what is shown of a lease (server-kind.ts). */
  readonly kind: ServerKindAdapter<S, T, L>;
  /** Re-run the reconcile of `name` (pool callbacks use it). */
  enqueue(name: string): void;
  /** A gated server was left strictly pending by a pass (rule 17). */
  onPendingApproval(server: S): void;
  /**
   * A pass left the served condition (`ToolsPinned`) False with something new to say: some of
   * the server's tools or prompts are held for the user (after the pass, like rule 17).
   */
  onHeld?(name: string): void;
}

export class ServerReconciler<
  S extends KindServer = DesiredServer,
  T extends { readonly connectionId: string } = AdmissionTicket,
  L extends ServedLease = Lease,
> implements Reconciler {
  readonly #deps: ServerReconcilerDeps<S, T, L>;
  readonly #kind: ServerKindAdapter<S, T, L>;
  readonly #records = new Map<string, ServerRecord<S['config'], L>>();
  /** Names configured earlier in this session and gone now (rule 16 `Removed`). */
  readonly #removed = new Set<string>();
  /** The connect each running pass waits for, by name: what it connects and how to stop it. */
  readonly #connecting = new Map<string, Connecting>();
  readonly #demands = new Demands();
  #closed = false;

  constructor(deps: ServerReconcilerDeps<S, T, L>) {
    this.#deps = deps;
    this.#kind = deps.kind;
  }

  record(name: string): ServerRecord<S['config'], L> | undefined {
    return this.#records.get(name);
  }

  records(): ReadonlyMap<string, ServerRecord<S['config'], L>> {
    return this.#records;
  }

  wasRemoved(name: string): boolean {
    return this.#removed.has(name);
  }

  /**
   * Ends every lease (they drain: the agent may come back); later passes do nothing, and a
   * running pass stops waiting for its connection (the session releases its waits).
   */
  close(): void {
    this.#closed = true;
    this.#demands.close(new Error('the session closed'));
    for (const rec of this.#records.values())
      this.#teardown(rec, 'session closed', 'sessionClosed', false);
  }

  /**
   * The desired state of `name` may have changed: a connect in progress for it stops at once
   * when a pass would connect nothing for it now (see the module comment). Decides nothing
   * else: the pass queued after it does.
   */
  preempt(name: string): void {
    const connecting = this.#connecting.get(name);
    if (!connecting || connecting.abort.signal.aborted || this.#wantsRunning(name)) return;
    connecting.abort.abort(
      new Error(`${this.#noun()} ${name}: the config no longer runs ${connecting.connectionId}`),
    );
  }

  /** Whether a pass would connect something for `name` now (in the config, admitted, runnable). */
  #wantsRunning(name: string): boolean {
    if (this.#closed) return false;
    const desired = this.#deps.desired();
    const server = Object.hasOwn(desired.servers, name) ? desired.servers[name] : undefined;
    if (!server) return false;
    const admission = this.#kind.admit(server, this.#deps.admissionContext(desired));
    return admission.admitted && admission.runnable;
  }

  /**
   * Servers waiting for an OAuth login try once more (a login happened): the names to enqueue.
   * Those still without a grant go back to waiting after one request.
   */
  retryLogins(): string[] {
    const names: string[] = [];
    for (const rec of this.#records.values()) {
      if (rec.awaitingLogin === undefined) continue;
      rec.awaitingLogin = undefined;
      names.push(rec.name);
    }
    return names;
  }

  /**
   * Servers given up past their restart policy try again (a reload): the names to enqueue,
   * with their failure count reset.
   */
  retryGivenUp(): string[] {
    const names: string[] = [];
    for (const rec of this.#records.values()) {
      if (rec.gaveUp === undefined) continue;
      rec.gaveUp = undefined;
      rec.failures = 0;
      names.push(rec.name);
    }
    return names;
  }

  /**
   * A request needs `name` running: resolves once a pass has it serving (at once when it runs
   * already), rejects when the pass could not (refused, failed: `why` says why).
   */
  demand(name: string): Promise<void> {
    const rec = this.#records.get(name);
    if (serving(rec)) return Promise.resolve();
    const waiting = this.#demands.demand(name);
    this.#deps.enqueue(name);
    return waiting;
  }

  /**
   * One pass for `name`, in phases: gone from the config → removed; admit (a refused or
   * unrunnable server is kept down); take in a lost connection; keep an unchanged one; serve
   * an idle one from its catalog; wait for a login or the end of a backoff; connect (and swap,
   * on a rolling update). The demands made before it began are settled at its end.
   */
  async reconcile(name: string): Promise<Result> {
    const demands = this.#demands.take(name);
    let result: Result = {};
    try {
      result = await this.#pass(name, demands.length > 0);
      return result;
    } finally {
      if (demands.length > 0) settle(demands, this.#demandFailure(name));
    }
  }

  /** Why the demands of a pass that ended now are not met; undefined when `name` serves. */
  #demandFailure(name: string): Error | undefined {
    const rec = this.#records.get(name);
    if (serving(rec)) return undefined;
    const ready = rec?.condition('Ready');
    return new Error(
      `${this.#noun()} ${name} did not start${ready?.message ? `: ${ready.message}` : ''}`,
    );
  }

  async #pass(name: string, demanded: boolean): Promise<Result> {
    if (this.#closed) return {};
    const desired = this.#deps.desired();
    const server = Object.hasOwn(desired.servers, name) ? desired.servers[name] : undefined;
    // One clock reading for every decision of the pass; what follows a connect reads it anew.
    const now = this.#deps.now();
    if (!server) {
      this.#remove(name);
      return {};
    }
    const rec = this.#observe(server, now);
    const ticket = this.#admit(rec, server, desired, now);
    if (ticket === undefined) return {};
    const wanted = ticket.connectionId;
    if (rec.live?.lost !== undefined) this.#handleLost(rec, rec.live, server, now);
    if (this.#keepCurrent(rec, server.config, wanted, now)) return {};
    if (!demanded && (await this.#serveIdle(rec, server, ticket, now))) return {};
    const wait = this.#waitBeforeConnect(rec, wanted, now);
    if (wait !== undefined) return wait;
    return this.#connect(rec, server, ticket, now);
  }

  /** The server left the config: its connection ends and its record goes (rule 16 `Removed`). */
  #remove(name: string): void {
    const rec = this.#records.get(name);
    if (!rec) return;
    this.#teardown(rec, 'removed from the config', 'config');
    this.#records.delete(name);
    this.#removed.add(name);
    this.#deps.events.record(
      'Normal',
      'Removed',
      rec.object,
      `${this.#noun()} ${name} was removed from the config`,
    );
  }

  #noun(): string {
    return this.#kind.descriptor.noun;
  }

  /** The server's record, made on first sight, with the generation of its current spec. */
  #observe(server: S, now: number): ServerRecord<S['config'], L> {
    const { name } = server;
    this.#removed.delete(name);
    let rec = this.#records.get(name);
    if (!rec) {
      rec = new ServerRecord<S['config'], L>(name, now, this.#kind.descriptor);
      this.#records.set(name, rec);
    }
    // An edited entry is tried again, with a fresh count, after a give-up.
    if (rec.observeSpec(server.config) && rec.gaveUp !== undefined) {
      rec.gaveUp = undefined;
      rec.failures = 0;
    }
    return rec;
  }

  /**
   * Admit phase: records the Admitted condition; a refused server, or one whose variables are
   * missing, is kept down and said so once. Returns the ticket to connect with, if any.
   */
  #admit(
    rec: ServerRecord<S['config'], L>,
    server: S,
    desired: DesiredView<S>,
    now: number,
  ): T | undefined {
    const admission = this.#kind.admit(server, this.#deps.admissionContext(desired));
    rec.setCondition(
      {
        type: 'Admitted',
        status: admission.admitted ? 'True' : 'False',
        reason: admission.reason,
        message: admission.message ?? '',
      },
      now,
    );
    if (!admission.admitted) {
      this.#refused(rec, server, admission, now);
      return undefined;
    }
    rec.promptedHash = undefined;
    if (!admission.runnable) {
      this.#notRunnable(rec, admission.problem, admission.message, now);
      return undefined;
    }
    rec.missingEnvReported = undefined;
    for (const secret of admission.secrets) rec.secrets.add(secret);
    return admission.ticket;
  }

  /** Not admitted: kept down; a pending server prompts once per config. */
  #refused(
    rec: ServerRecord<S['config'], L>,
    server: S,
    refusal: RefusedDecision,
    now: number,
  ): void {
    this.#keepDown(rec, 'NotAdmitted', refusal.message, now);
    if (refusal.reason !== 'PendingApproval') {
      rec.promptedHash = undefined;
      return;
    }
    // Prompt once per config: a new server, or one edited after a decision (rule 8).
    const hash = this.#kind.descriptor.approvalHash(server.config);
    if (rec.promptedHash === hash) return;
    rec.promptedHash = hash;
    this.#deps.events.record('Normal', 'PendingApproval', rec.object, refusal.message);
    this.#deps.onPendingApproval(server);
  }

  /**
   * Nothing may start with a literal ${VAR} (MissingEnv), nor with what its entry names but
   * cannot be used (InvalidConfig: a language server's workspace folder outside the workspace):
   * the old connection (if any) goes too, since the config it ran no longer describes anything
   * this session can run. One Warning per cause.
   */
  #notRunnable(
    rec: ServerRecord<S['config'], L>,
    problem: 'MissingEnv' | 'InvalidConfig',
    message: string,
    now: number,
  ): void {
    this.#keepDown(rec, problem, message, now);
    if (rec.missingEnvReported === message) return;
    rec.missingEnvReported = message;
    this.#deps.events.record('Warning', problem, rec.object, message);
  }

  /**
   * The live connection already runs `wanted`: the same lease stays, only the tool filter and
   * the conditions follow the config. False when there is nothing to keep.
   */
  #keepCurrent(
    rec: ServerRecord<S['config'], L>,
    config: S['config'],
    wanted: string,
    now: number,
  ): boolean {
    const live = rec.live;
    if (!live || live.connectionId !== wanted) return false;
    const before = live.config;
    live.config = config;
    if (before !== config) this.#kind.update?.(live.lease, before, config);
    this.#kind.publish(rec.name, live.lease, config);
    this.#markReady(rec, live, now);
    return true;
  }

  /**
   * A server that needs a login waits for it, and a failed config is not retried before its
   * backoff window ends; an edited config tries afresh. The result to return while waiting;
   * `undefined` when the pass may connect now.
   */
  #waitBeforeConnect(
    rec: ServerRecord<S['config'], L>,
    wanted: string,
    now: number,
  ): Result | undefined {
    // Given up past the restart policy: nothing until an edit or a reload.
    if (rec.gaveUp !== undefined) {
      if (rec.gaveUp === wanted) return {};
      rec.gaveUp = undefined;
      rec.failures = 0;
    }
    if (rec.awaitingLogin !== undefined) {
      if (rec.awaitingLogin === wanted) return {};
      rec.awaitingLogin = undefined;
    }
    if (rec.retry && rec.retry.connectionId !== wanted) {
      rec.retry = undefined;
      rec.failures = 0;
    }
    if (rec.retry && now < rec.retry.at) return { requeueAfter: rec.retry.at - now };
    return undefined;
  }

  /**
   * Connect phase: Recreate lets the old connection go first; RollingUpdate connects beside it
   * and swaps on success, and on failure the old one keeps serving.
   */
  async #connect(
    rec: ServerRecord<S['config'], L>,
    server: S,
    ticket: T,
    now: number,
  ): Promise<Result> {
    const d = this.#deps;
    const { name } = rec;
    const config = server.config;
    const wanted = ticket.connectionId;
    if (rec.live && this.#kind.updateStrategy(config) === 'Recreate') {
      this.#teardown(rec, 'config changed (Recreate)', 'config');
    }
    const rolling = rec.live !== undefined;
    if (rolling) {
      const message = `connecting ${wanted}`;
      rec.setCondition({ type: 'UpToDate', status: 'False', reason: 'RollingOut', message }, now);
    } else if (rec.failures === 0) {
      // A retry keeps Ready=False with the last error: `why` stays truthful while it backs off.
      rec.setCondition(
        { type: 'Ready', status: 'Unknown', reason: 'Connecting', message: `connecting ${wanted}` },
        now,
      );
    }

    let lease: L;
    const abort = new AbortController();
    this.#connecting.set(name, { connectionId: wanted, abort });
    try {
      lease = await this.#kind.pool.acquire(
        ticket,
        {
          sessionId: d.sessionId,
          onLost: (reason, cause) => this.#onLost(name, wanted, reason, cause),
          onListChanged: () => d.enqueue(name),
          onFlooding: () => d.enqueue(name),
          onOversized: (line) => this.#onOversized(name, wanted, line),
        },
        { signal: abort.signal },
      );
    } catch (err) {
      // Preempted or closed: not a failure of the server; the next pass (queued) decides.
      if (abort.signal.aborted || this.#closed) return {};
      // Its catalog was listed while it started: a server that cannot start lists nothing.
      if (rec.idle !== undefined && !rec.live) this.#unpublish(rec);
      rec.idle = undefined;
      return connectFailed(
        this.#deps,
        rec,
        wanted,
        err,
        rolling,
        this.#kind.restartPolicy?.(server),
      );
    } finally {
      this.#connecting.delete(name);
    }

    if (this.#closed || this.#records.get(name) !== rec || abort.signal.aborted) {
      // The session closed, or the config changed its mind, while we were connecting.
      this.#kind.pool.release(lease.key, d.sessionId, {
        reason: this.#closed ? 'sessionClosed' : 'config',
      });
      return {};
    }
    this.#swapIn(rec, lease, wanted, config);
    return {};
  }

  /** The new lease serves from now on; the old side of a rolling update ends (rule 11). */
  #swapIn(
    rec: ServerRecord<S['config'], L>,
    lease: L,
    connectionId: string,
    config: S['config'],
  ): void {
    const d = this.#deps;
    const previous = rec.live;
    const next: LiveConnection<S['config'], L> = {
      lease,
      connectionId,
      config,
      connectedAt: d.now(),
    };
    rec.live = next;
    rec.idle = undefined;
    this.#kind.publish(rec.name, lease, config);
    if (previous) this.#kind.pool.release(previous.lease.key, d.sessionId, { reason: 'config' });
    if (rec.everConnected) rec.restarts += 1;
    rec.everConnected = true;
    rec.retry = undefined;
    rec.lastError = undefined;
    const t = d.now();
    this.#markReady(rec, next, t);
    d.events.record(
      'Normal',
      previous ? 'Restarted' : 'Connected',
      rec.object,
      `${previous ? `rolled ${previous.connectionId} to` : 'connected'} ${connectionId} (pid ${lease.pid ?? 'remote'}, ${this.#kind.connectedNote(lease)})`,
    );
  }

  /** The config says this server must not run now: no connection, no retry, and why. */
  #keepDown(
    rec: ServerRecord<S['config'], L>,
    reason: Extract<ReadyReason, 'NotAdmitted' | 'MissingEnv' | 'InvalidConfig'>,
    message: string,
    now: number,
  ): void {
    this.#teardown(rec, message, 'config');
    rec.failures = 0;
    rec.retry = undefined;
    // Admitted (or runnable) again later, it tries once, and says Unauthorized again if still so.
    rec.awaitingLogin = undefined;
    rec.setCondition({ type: 'Ready', status: 'False', reason, message }, now);
    rec.setCondition({ type: 'UpToDate', status: 'True', reason: 'Current', message: '' }, now);
  }

  /** The pool's callback: only marks the connection lost and enqueues; the pass handles it. */
  #onLost(name: string, connectionId: string, reason: string, cause?: LostCause): void {
    const rec = this.#records.get(name);
    if (!rec?.live || rec.live.connectionId !== connectionId) return;
    rec.live.lost = reason;
    rec.live.lostCause = cause;
    this.#deps.enqueue(name);
  }

  /** The pool dropped a message over the size limit: the next pass records it. */
  #onOversized(name: string, connectionId: string, line: OversizedLine): void {
    const rec = this.#records.get(name);
    if (!rec?.live || rec.live.connectionId !== connectionId) return;
    (rec.live.oversized ??= []).push(line);
    this.#deps.enqueue(name);
  }

  /** The pool dropped the lease: tools go at once, the record says what comes next. */
  #handleLost(
    rec: ServerRecord<S['config'], L>,
    live: LiveConnection<S['config'], L>,
    server: S,
    now: number,
  ): void {
    rec.live = undefined;
    if (live.lostCause === 'idle') {
      // Not a failure: what it listed stays served from its catalog (the next phase).
      rec.idle = { connectionId: live.connectionId, stoppedAt: now };
      this.#deps.events.record(
        'Normal',
        'Stopped',
        rec.object,
        `${live.lost ?? 'stopped after idling'}; its next request starts it again`,
      );
      return;
    }
    this.#unpublish(rec);
    lost(this.#deps, rec, live, now, this.#kind.restartPolicy?.(server));
  }

  /**
   * Serves an admitted server from its catalog instead of starting it, when its kind and
   * config let it idle, nothing failed, and its connectionId listed before. False: connect.
   */
  async #serveIdle(
    rec: ServerRecord<S['config'], L>,
    server: S,
    ticket: T,
    now: number,
  ): Promise<boolean> {
    const idle = this.#kind.idle;
    if (!idle || idle.idleStopMs(server.config) <= 0) return false;
    if (
      rec.failures > 0 ||
      rec.retry ||
      rec.awaitingLogin !== undefined ||
      rec.gaveUp !== undefined
    )
      return false;
    if (rec.idle !== undefined && rec.idle.connectionId !== ticket.connectionId)
      rec.idle = undefined;
    const served = await idle.serveIdle(rec.name, ticket, server.config);
    if (!served || this.#closed || this.#records.get(rec.name) !== rec) return false;
    // An edit back to a config whose catalog is known: the old process goes, nothing starts.
    if (rec.live)
      this.#teardown(rec, 'config changed; served from its catalog', 'config', true, false);
    const since = rec.idle?.stoppedAt;
    rec.idle = {
      connectionId: ticket.connectionId,
      ...(since !== undefined ? { stoppedAt: since } : {}),
    };
    const message =
      since === undefined
        ? `${served.note} from its catalog of ${served.learnedAt}; not started until a request needs it`
        : `${served.note} from its catalog; stopped at ${new Date(since).toISOString()} after idling; its next request starts it`;
    rec.setCondition({ type: 'Ready', status: 'True', reason: 'Idle', message }, now);
    rec.setCondition({ type: 'UpToDate', status: 'True', reason: 'Current', message: '' }, now);
    this.#markServed(rec, now);
    return true;
  }

  /** Ready, with what the kind says of it (the number of tools the registry serves for it). */
  #markReady(
    rec: ServerRecord<S['config'], L>,
    live: LiveConnection<S['config'], L>,
    now: number,
  ): void {
    markReady(this.#deps, rec, live, this.#kind.readyMessage(rec.name, live.lease), now);
    this.#markServed(rec, now);
  }

  /** The condition about what is served (pins), beside Ready; a new False one is a Warning. */
  #markServed(rec: ServerRecord<S['config'], L>, now: number): void {
    const served = this.#kind.servedCondition?.(rec.name);
    if (!served) return;
    const before = rec.condition(served.type);
    rec.setCondition(served, now);
    const news = before?.reason !== served.reason || before.message !== served.message;
    if (news && served.status === 'False') {
      this.#deps.events.record('Warning', served.reason, rec.object, served.message);
      this.#deps.onHeld?.(rec.name);
    }
  }

  /** Nothing serves the server: what it offered says nothing any more. */
  #unpublish(rec: ServerRecord<S['config'], L>): void {
    this.#kind.unpublish(rec.name);
    const type = this.#kind.servedConditionType;
    if (type !== undefined) rec.conditions = rec.conditions.filter((c) => c.type !== type);
  }

  /**
   * Drops the server's tools and lets go of its lease. `reason` is the pool's: `config` when
   * the config says it must not run (removed, refused, recreated: the process ends now, rule
   * 12), `sessionClosed` when the session ends.
   */
  #teardown(
    rec: ServerRecord<S['config'], L>,
    why: string,
    reason: ReleaseReason,
    record = true,
    unpublish = true,
  ): void {
    const d = this.#deps;
    const live = rec.live;
    if (unpublish) {
      this.#unpublish(rec);
      rec.idle = undefined;
    }
    if (!live) return;
    rec.live = undefined;
    if (live.lost === undefined) this.#kind.pool.release(live.lease.key, d.sessionId, { reason });
    if (record) d.events.record('Normal', 'Disconnected', rec.object, `disconnected: ${why}`);
  }
}

/** Whether a live connection serves the record now (not lost, not idle). */
function serving(rec: { live?: { lost?: string }; idle?: unknown } | undefined): boolean {
  return rec?.live !== undefined && rec.live.lost === undefined && rec.idle === undefined;
}
