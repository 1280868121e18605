/**
 * The per-server reconcile: level-based, for one name, looking only at desired and actual now
 * (DESIGN §2, §4 rules 11–13, §5).
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
 * - How each outcome shows (conditions, events, backoff, flooding): server-status.ts.
 * - A message over the size limit from a server (the pool dropped it; its request failed) is a
 *   Warning event `MessageTooLarge` per message, saying what it was; the connection stays Ready.
 */
import {
  approvalHashOf,
  type DesiredServer,
  type DesiredServers,
  type Gating,
  type McpServerConfig,
  type ReadyReason,
} from '../api/index.js';
import type { Lease, LostCause, Pool, ReleaseReason } from '../pool/types.js';
import type { OversizedLine } from '../pool/traffic.js';
import type { AdmissionTicket } from '../pool/ticket.js';
import { admit, type AdmissionContext, type RefusedDecision } from './admission.js';
import type { Reconciler, Result } from './reconcile.js';
import type { Registry, RegistryEntry } from './registry.js';
import { ServerRecord, type LiveConnection } from './server-record.js';
import { connectFailed, lost, markReady, type StatusDeps } from './server-status.js';
import { toolFilterOf } from './tool-filter.js';

/** The slice of the session's desired state a reconcile reads. */
export interface DesiredView {
  readonly servers: DesiredServers;
  readonly gating: Gating;
  readonly trusted: boolean;
}

export interface ServerReconcilerDeps extends StatusDeps {
  readonly sessionId: string;
  /**
   * The session's admission context with the trust and gating of `desired` (its approvals, its
   * environment: what `${VAR}` in a config expands to, what servers start in). The session
   * builds it, in one place for every judgement it makes.
   */
  admissionContext(desired: DesiredView): AdmissionContext;
  desired(): DesiredView;
  readonly pool: Pool;
  readonly registry: Registry;
  /** Re-run the reconcile of `name` (pool callbacks use it). */
  enqueue(name: string): void;
  /** A gated server was left strictly pending by a pass (rule 17). */
  onPendingApproval(server: DesiredServer): void;
}

export class ServerReconciler implements Reconciler {
  readonly #deps: ServerReconcilerDeps;
  readonly #records = new Map<string, ServerRecord>();
  /** Names configured earlier in this session and gone now (rule 16 `Removed`). */
  readonly #removed = new Set<string>();
  #closed = false;

  constructor(deps: ServerReconcilerDeps) {
    this.#deps = deps;
  }

  record(name: string): ServerRecord | undefined {
    return this.#records.get(name);
  }

  records(): ReadonlyMap<string, ServerRecord> {
    return this.#records;
  }

  wasRemoved(name: string): boolean {
    return this.#removed.has(name);
  }

  /** Ends every lease (they drain: the agent may come back); later passes do nothing. */
  close(): void {
    this.#closed = true;
    for (const rec of this.#records.values())
      this.#teardown(rec, 'session closed', 'sessionClosed', false);
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
   * One pass for `name`, in phases: gone from the config → removed; admit (a refused or
   * unrunnable server is kept down); take in a lost connection; keep an unchanged one; wait
   * for a login or the end of a backoff; connect (and swap, on a rolling update).
   */
  async reconcile(name: string): Promise<Result> {
    if (this.#closed) return {};
    const desired = this.#deps.desired();
    const server = desired.servers[name];
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
    if (rec.live?.lost !== undefined) this.#handleLost(rec, rec.live, now);
    if (this.#keepCurrent(rec, server.config, wanted, now)) return {};
    const wait = this.#waitBeforeConnect(rec, wanted, now);
    if (wait !== undefined) return wait;
    return this.#connect(rec, server.config, ticket, now);
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
      `server/${name}`,
      `server ${name} was removed from the config`,
    );
  }

  /** The server's record, made on first sight, with the generation of its current spec. */
  #observe(server: DesiredServer, now: number): ServerRecord {
    const { name } = server;
    this.#removed.delete(name);
    let rec = this.#records.get(name);
    if (!rec) {
      rec = new ServerRecord(name, now);
      this.#records.set(name, rec);
    }
    rec.observeSpec(server.config);
    return rec;
  }

  /**
   * Admit phase: records the Admitted condition; a refused server, or one whose variables are
   * missing, is kept down and said so once. Returns the ticket to connect with, if any.
   */
  #admit(
    rec: ServerRecord,
    server: DesiredServer,
    desired: DesiredView,
    now: number,
  ): AdmissionTicket | undefined {
    const admission = admit(server, this.#deps.admissionContext(desired));
    rec.setCondition(
      {
        type: 'Admitted',
        status: admission.admitted ? 'True' : 'False',
        reason: admission.reason,
        message: admission.admitted ? '' : admission.message,
      },
      now,
    );
    if (!admission.admitted) {
      this.#refused(rec, server, admission, now);
      return undefined;
    }
    rec.promptedHash = undefined;
    if (!admission.runnable) {
      this.#missingEnv(rec, admission.message, now);
      return undefined;
    }
    rec.missingEnvReported = undefined;
    for (const secret of admission.secrets) rec.secrets.add(secret);
    return admission.ticket;
  }

  /** Not admitted: kept down; a pending server prompts once per config. */
  #refused(rec: ServerRecord, server: DesiredServer, refusal: RefusedDecision, now: number): void {
    this.#keepDown(rec, 'NotAdmitted', refusal.message, now);
    if (refusal.reason !== 'PendingApproval') {
      rec.promptedHash = undefined;
      return;
    }
    // Prompt once per config: a new server, or one edited after a decision (rule 8).
    const hash = approvalHashOf(server.config);
    if (rec.promptedHash === hash) return;
    rec.promptedHash = hash;
    this.#deps.events.record('Normal', 'PendingApproval', `server/${rec.name}`, refusal.message);
    this.#deps.onPendingApproval(server);
  }

  /**
   * Nothing may start with a literal ${VAR}: the old connection (if any) goes too, since the
   * config it ran no longer describes anything this session can run. One Warning per cause.
   */
  #missingEnv(rec: ServerRecord, message: string, now: number): void {
    this.#keepDown(rec, 'MissingEnv', message, now);
    if (rec.missingEnvReported === message) return;
    rec.missingEnvReported = message;
    this.#deps.events.record('Warning', 'MissingEnv', `server/${rec.name}`, message);
  }

  /**
   * The live connection already runs `wanted`: the same lease stays, only the tool filter and
   * the conditions follow the config. False when there is nothing to keep.
   */
  #keepCurrent(rec: ServerRecord, config: McpServerConfig, wanted: string, now: number): boolean {
    const live = rec.live;
    if (!live || live.connectionId !== wanted) return false;
    live.config = config;
    this.#deps.registry.set(rec.name, entryOf(live.lease, config));
    this.#markReady(rec, live, now);
    return true;
  }

  /**
   * A server that needs a login waits for it, and a failed config is not retried before its
   * backoff window ends; an edited config tries afresh. The result to return while waiting;
   * `undefined` when the pass may connect now.
   */
  #waitBeforeConnect(rec: ServerRecord, wanted: string, now: number): Result | undefined {
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
    rec: ServerRecord,
    config: McpServerConfig,
    ticket: AdmissionTicket,
    now: number,
  ): Promise<Result> {
    const d = this.#deps;
    const { name } = rec;
    const wanted = ticket.connectionId;
    if (rec.live && (config.updateStrategy ?? 'RollingUpdate') === 'Recreate') {
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

    let lease: Lease;
    try {
      lease = await d.pool.acquire(ticket, {
        sessionId: d.sessionId,
        onLost: (reason, cause) => this.#onLost(name, wanted, reason, cause),
        onListChanged: () => d.enqueue(name),
        onFlooding: () => d.enqueue(name),
        onOversized: (line) => this.#onOversized(name, wanted, line),
      });
    } catch (err) {
      return connectFailed(this.#deps, rec, wanted, err, rolling);
    }

    if (this.#closed || this.#records.get(name) !== rec) {
      // The session closed or the server went away while we were connecting.
      d.pool.release(lease.key, d.sessionId, {
        reason: this.#closed ? 'sessionClosed' : 'config',
      });
      return {};
    }
    this.#swapIn(rec, lease, wanted, config);
    return {};
  }

  /** The new lease serves from now on; the old side of a rolling update ends (rule 11). */
  #swapIn(rec: ServerRecord, lease: Lease, connectionId: string, config: McpServerConfig): void {
    const d = this.#deps;
    const previous = rec.live;
    const next: LiveConnection = {
      lease,
      connectionId,
      config,
      connectedAt: d.now(),
    };
    rec.live = next;
    d.registry.set(rec.name, entryOf(lease, config));
    if (previous) d.pool.release(previous.lease.key, d.sessionId, { reason: 'config' });
    if (rec.everConnected) rec.restarts += 1;
    rec.everConnected = true;
    rec.retry = undefined;
    rec.lastError = undefined;
    const t = d.now();
    this.#markReady(rec, next, t);
    d.events.record(
      'Normal',
      previous ? 'Restarted' : 'Connected',
      `server/${rec.name}`,
      `${previous ? `rolled ${previous.connectionId} to` : 'connected'} ${connectionId} (pid ${lease.pid ?? 'remote'}, ${lease.tools().length} tools)`,
    );
  }

  /** The config says this server must not run now: no connection, no retry, and why. */
  #keepDown(
    rec: ServerRecord,
    reason: Extract<ReadyReason, 'NotAdmitted' | 'MissingEnv'>,
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
  #handleLost(rec: ServerRecord, live: LiveConnection, now: number): void {
    rec.live = undefined;
    this.#deps.registry.delete(rec.name);
    lost(this.#deps, rec, live, now);
  }

  /** Ready, with the number of tools the registry serves for it. */
  #markReady(rec: ServerRecord, live: LiveConnection, now: number): void {
    const tools = this.#deps.registry.get(rec.name)?.tools.length ?? 0;
    markReady(this.#deps, rec, live, tools, now);
  }

  /**
   * Drops the server's tools and lets go of its lease. `reason` is the pool's: `config` when
   * the config says it must not run (removed, refused, recreated: the process ends now, rule
   * 12), `sessionClosed` when the session ends.
   */
  #teardown(rec: ServerRecord, why: string, reason: ReleaseReason, record = true): void {
    const d = this.#deps;
    const live = rec.live;
    d.registry.delete(rec.name);
    if (!live) return;
    rec.live = undefined;
    if (live.lost === undefined) d.pool.release(live.lease.key, d.sessionId, { reason });
    if (record)
      d.events.record('Normal', 'Disconnected', `server/${rec.name}`, `disconnected: ${why}`);
  }
}

function entryOf(lease: Lease, config: McpServerConfig): RegistryEntry {
  const keep = toolFilterOf(config);
  return {
    key: lease.key,
    connectionId: lease.connectionId,
    tools: lease.tools().filter((t) => keep(t.name)),
    prompts: lease.prompts(),
    capabilities: lease.serverCapabilities?.(),
    instructions: lease.instructions?.(),
  };
}
