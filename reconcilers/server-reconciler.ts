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
 * - Failures back off per server; three in a row show CrashLoopBackOff with the next retry
 *   time; a connection that stayed up `stableAfterMs` starts the count afresh.
 * - The queue guarantees one pass per name at a time; pool callbacks only mark and enqueue.
 * - A connection that floods (pool traffic budgets) stays Ready, its Ready message says
 *   `degraded: …` with what it does, and a Warning event `Flooding` names it each time the
 *   pool renews its report (at most once per report interval; equal messages only count up).
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
  type SessionEnv,
  sizeText,
} from '../api/index.js';
import type { Lease, LostCause, Pool, ReleaseReason } from '../pool/types.js';
import type { OversizedLine } from '../pool/traffic.js';
import { admit, type ApprovalView } from './admission.js';
import type { EventSink } from './events.js';
import type { Registry, RegistryEntry } from './registry.js';
import { ServerRecord, type LiveConnection } from './server-record.js';
import { toolFilterOf } from './tool-filter.js';

/** The slice of the session's desired state a reconcile reads. */
export interface DesiredView {
  readonly servers: DesiredServers;
  readonly gating: Gating;
  readonly trusted: boolean;
}

export interface ServerReconcilerDeps {
  readonly sessionId: string;
  readonly workspace: string;
  /** The session's environment: what `${VAR}` in a config expands to. */
  readonly env: SessionEnv;
  desired(): DesiredView;
  readonly approvals: ApprovalView;
  readonly pool: Pool;
  readonly registry: Registry;
  readonly events: EventSink;
  /** Re-run the reconcile of `name` (pool callbacks use it). */
  enqueue(name: string): void;
  /** A gated server was left strictly pending by a pass (rule 17). */
  onPendingApproval(server: DesiredServer): void;
  now(): number;
  /** Delay before retry number `failures` (1-based). */
  backoff(failures: number): number;
  /** A connection up this long resets the failure count (60 s). */
  readonly stableAfterMs: number;
  /** Three failures in a row (or this many) show CrashLoopBackOff. */
  readonly crashLoopAfter: number;
}

export interface ReconcileResult {
  readonly requeueAfter?: number;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class ServerReconciler {
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

  async reconcile(name: string): Promise<ReconcileResult> {
    if (this.#closed) return {};
    const d = this.#deps;
    const desired = d.desired();
    const server = desired.servers[name];
    const now = d.now();
    let rec = this.#records.get(name);

    if (!server) {
      if (rec) {
        this.#teardown(rec, 'removed from the config', 'config');
        this.#records.delete(name);
        this.#removed.add(name);
        d.events.record(
          'Normal',
          'Removed',
          `server/${name}`,
          `server ${name} was removed from the config`,
        );
      }
      return {};
    }

    this.#removed.delete(name);
    if (!rec) {
      rec = new ServerRecord(name, now);
      this.#records.set(name, rec);
    }
    rec.observeSpec(server.config);

    const admission = admit(server, {
      trusted: desired.trusted,
      gating: desired.gating,
      approvals: d.approvals,
      sessionId: d.sessionId,
      workspace: d.workspace,
      env: d.env,
    });
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
      this.#keepDown(rec, 'NotAdmitted', admission.message, now);
      if (admission.reason === 'PendingApproval') {
        // Prompt once per config: a new server, or one edited after a decision (rule 8).
        const hash = approvalHashOf(server.config);
        if (rec.promptedHash !== hash) {
          rec.promptedHash = hash;
          d.events.record('Normal', 'PendingApproval', `server/${name}`, admission.message);
          d.onPendingApproval(server);
        }
      } else {
        rec.promptedHash = undefined;
      }
      return {};
    }

    rec.promptedHash = undefined;
    if (!admission.runnable) {
      // Nothing may start with a literal ${VAR}: the old connection (if any) goes too, since
      // the config it ran no longer describes anything this session can run.
      this.#keepDown(rec, 'MissingEnv', admission.message, now);
      if (rec.missingEnvReported !== admission.message) {
        rec.missingEnvReported = admission.message;
        d.events.record('Warning', 'MissingEnv', `server/${name}`, admission.message);
      }
      return {};
    }
    rec.missingEnvReported = undefined;
    for (const secret of admission.secrets) rec.secrets.add(secret);
    const wanted = admission.ticket.connectionId;
    if (rec.live?.lost !== undefined) this.#handleLost(rec, rec.live, now);

    const live = rec.live;
    if (live && live.connectionId === wanted) {
      live.config = server.config;
      d.registry.set(name, entryOf(live.lease, server.config));
      this.#markReady(rec, live, now);
      return {};
    }

    // A server that needs a login waits for it; an edited config tries afresh.
    if (rec.awaitingLogin !== undefined) {
      if (rec.awaitingLogin === wanted) return {};
      rec.awaitingLogin = undefined;
    }
    // A failed config is not retried before its backoff window ends; an edited one is.
    if (rec.retry && rec.retry.connectionId !== wanted) {
      rec.retry = undefined;
      rec.failures = 0;
    }
    if (rec.retry && now < rec.retry.at) return { requeueAfter: rec.retry.at - now };

    if (live && (server.config.updateStrategy ?? 'RollingUpdate') === 'Recreate') {
      this.#teardown(rec, 'config changed (Recreate)', 'config');
    }
    const rolling = rec.live !== undefined;
    if (rolling) {
      rec.setCondition(
        {
          type: 'UpToDate',
          status: 'False',
          reason: 'RollingOut',
          message: `connecting ${wanted}`,
        },
        now,
      );
    } else if (rec.failures === 0) {
      // A retry keeps Ready=False with the last error: `why` stays truthful while it backs off.
      rec.setCondition(
        { type: 'Ready', status: 'Unknown', reason: 'Connecting', message: `connecting ${wanted}` },
        now,
      );
    }

    let lease: Lease;
    try {
      lease = await d.pool.acquire(admission.ticket, {
        sessionId: d.sessionId,
        onLost: (reason, cause) => this.#onLost(name, wanted, reason, cause),
        onListChanged: () => d.enqueue(name),
        onFlooding: () => d.enqueue(name),
        onOversized: (line) => this.#onOversized(name, wanted, line),
      });
    } catch (err) {
      // The pool's ConnectError carries the server's last stderr lines (describe shows them).
      const tail = (err as { stderrTail?: unknown }).stderrTail;
      if (Array.isArray(tail))
        rec.lastStderr = tail.filter((l): l is string => typeof l === 'string').map(rec.scrub);
      if ((err as { unauthorized?: unknown }).unauthorized === true && !rolling)
        return this.#unauthorized(rec, wanted, rec.scrub(errorText(err)));
      return this.#failed(rec, wanted, rec.scrub(errorText(err)), rolling);
    }

    if (this.#closed || this.#records.get(name) !== rec) {
      // The session closed or the server went away while we were connecting.
      d.pool.release(lease.key, d.sessionId, {
        reason: this.#closed ? 'sessionClosed' : 'config',
      });
      return {};
    }
    const previous = rec.live;
    const next: LiveConnection = {
      lease,
      connectionId: wanted,
      config: server.config,
      connectedAt: d.now(),
    };
    rec.live = next;
    d.registry.set(name, entryOf(lease, server.config));
    // The old side of a rolling update: the config replaced it, so it ends now (rule 11).
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
      `server/${name}`,
      `${previous ? `rolled ${previous.connectionId} to` : 'connected'} ${wanted} (pid ${lease.pid ?? 'remote'}, ${lease.tools().length} tools)`,
    );
    return {};
  }

  /** Ends every lease (they drain: the agent may come back); later passes do nothing. */
  close(): void {
    this.#closed = true;
    for (const rec of this.#records.values())
      this.#teardown(rec, 'session closed', 'sessionClosed', false);
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

  #markReady(rec: ServerRecord, live: LiveConnection, now: number): void {
    const tools = this.#deps.registry.get(rec.name)?.tools.length ?? 0;
    for (const line of live.oversized?.splice(0) ?? [])
      this.#deps.events.record(
        'Warning',
        'MessageTooLarge',
        `server/${rec.name}`,
        oversizedMessage(rec.name, line),
      );
    const flood = live.lease.flooding?.();
    if (flood && flood.note !== rec.floodNote) {
      // The message names the kinds, not the numbers: a flood that goes on counts up one event.
      this.#deps.events.record(
        'Warning',
        'Flooding',
        `server/${rec.name}`,
        `server ${rec.name} floods mcpctl (${flood.kinds.join(', ')} over its limits): the excess is dropped or read later, other servers are not slowed`,
      );
    }
    rec.floodNote = flood?.note;
    rec.setCondition(
      {
        type: 'Ready',
        status: 'True',
        reason: 'Connected',
        message: flood ? `${tools} tools; degraded: ${flood.note}` : `${tools} tools`,
      },
      now,
    );
    rec.setCondition({ type: 'UpToDate', status: 'True', reason: 'Current', message: '' }, now);
    if (now - live.connectedAt >= this.#deps.stableAfterMs) rec.failures = 0;
  }

  #failed(
    rec: ServerRecord,
    connectionId: string,
    message: string,
    rolling: boolean,
  ): ReconcileResult {
    const d = this.#deps;
    const now = d.now();
    rec.failures += 1;
    const delay = d.backoff(rec.failures);
    rec.retry = { connectionId, at: now + delay };
    rec.lastError = message;
    const retryAt = new Date(now + delay).toISOString();
    if (rolling) {
      rec.setCondition(
        {
          type: 'UpToDate',
          status: 'False',
          reason: 'RolloutFailed',
          message: `${message}; the previous connection keeps serving; next try at ${retryAt}`,
        },
        now,
      );
      d.events.record('Warning', 'RolloutFailed', `server/${rec.name}`, message);
      return { requeueAfter: delay };
    }
    const crashLoop = rec.failures >= d.crashLoopAfter;
    rec.setCondition(
      {
        type: 'Ready',
        status: 'False',
        reason: crashLoop ? 'CrashLoopBackOff' : 'ConnectFailed',
        message: `${message}; back-off ${Math.round(delay / 1000)}s, next retry at ${retryAt}`,
      },
      now,
    );
    d.events.record(
      'Warning',
      crashLoop ? 'BackOff' : 'ConnectFailed',
      `server/${rec.name}`,
      `${message} (failure ${rec.failures}; next retry at ${retryAt})`,
    );
    return { requeueAfter: delay };
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

  /** The server needs a login: Ready=False Unauthorized, no retry until one (no backoff spam). */
  #unauthorized(rec: ServerRecord, connectionId: string, message: string): ReconcileResult {
    const d = this.#deps;
    const now = d.now();
    const first = rec.awaitingLogin === undefined && rec.lastError !== message;
    rec.awaitingLogin = connectionId;
    rec.retry = undefined;
    rec.failures = 0;
    rec.lastError = message;
    rec.setCondition({ type: 'Ready', status: 'False', reason: 'Unauthorized', message }, now);
    if (first) d.events.record('Warning', 'Unauthorized', `server/${rec.name}`, message);
    return {};
  }

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

  /** The pool dropped the lease: tools go at once, a retry is scheduled with backoff. */
  #handleLost(rec: ServerRecord, live: LiveConnection, now: number): void {
    const d = this.#deps;
    rec.live = undefined;
    d.registry.delete(rec.name);
    rec.lastStderr = live.lease.stderrTail().map(rec.scrub);
    if (live.lostCause === 'unauthorized') {
      d.events.record(
        'Warning',
        'Disconnected',
        `server/${rec.name}`,
        rec.scrub(`connection lost: ${live.lost ?? 'unknown'}`),
      );
      this.#unauthorized(rec, live.connectionId, rec.scrub(live.lost ?? 'needs an OAuth login'));
      return;
    }
    if (now - live.connectedAt >= d.stableAfterMs) rec.failures = 0;
    rec.failures += 1;
    const delay = d.backoff(rec.failures);
    rec.retry = { connectionId: live.connectionId, at: now + delay };
    const message = rec.scrub(`connection lost: ${live.lost ?? 'unknown'}`);
    rec.lastError = message;
    const crashLoop = rec.failures >= d.crashLoopAfter;
    const retryAt = new Date(now + delay).toISOString();
    rec.setCondition(
      {
        type: 'Ready',
        status: 'False',
        reason: crashLoop ? 'CrashLoopBackOff' : 'ConnectFailed',
        message: `${message}; back-off ${Math.round(delay / 1000)}s, next retry at ${retryAt}`,
      },
      now,
    );
    d.events.record('Warning', 'Disconnected', `server/${rec.name}`, message);
    d.events.record(
      'Warning',
      'BackOff',
      `server/${rec.name}`,
      `restarting failed server in ${Math.round(delay / 1000)}s (failure ${rec.failures})`,
    );
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

/** The event of a message over the size limit: per kind, so equal ones count up. */
function oversizedMessage(name: string, line: OversizedLine): string {
  const over = `over the ${sizeText(line.limitBytes)} message limit`;
  const what = {
    answer: `an answer ${over}: mcpctl dropped it and failed that request with a size error`,
    request: `a request ${over}: mcpctl dropped it and answered it with an error`,
    notification: `a notification ${over}: mcpctl dropped it`,
    unknown: `a stdout line ${over} that answers no request of ours: mcpctl dropped it`,
  }[line.kind];
  return `server ${name} sent ${what}; the connection goes on`;
}
