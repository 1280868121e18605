/**
 * How the outcome of a reconcile pass shows on a server's record: its Ready and UpToDate
 * conditions, its events, its failure count and retry window. The server reconciler decides
 * what happens to connections; this file only says what that looks like.
 *
 * Guarantees:
 * - Failures back off per server; three in a row (`crashLoopAfter`) show CrashLoopBackOff with
 *   the next retry time; a connection that stayed up `stableAfterMs` starts the count afresh.
 * - A failed rolling update keeps Ready as it was and says RolloutFailed on UpToDate.
 * - A server that needs an OAuth login shows Unauthorized and gets no retry window: it waits
 *   for a login, and says so in one Warning per stretch of waiting.
 * - A connection that floods (pool traffic budgets) stays Ready, its Ready message says
 *   `degraded: …` with what it does, and a Warning event `Flooding` names it each time the
 *   pool renews its report (at most once per report interval; equal messages only count up).
 * - Each message over the size limit the pool dropped is one Warning `MessageTooLarge`.
 * - Every text taken from a server (errors, stderr) is scrubbed of its config's secrets.
 * - A server with a restart policy (language servers: `restartOnCrash`, `maxRestarts`) is given
 *   up past it: Ready=False CrashLoopBackOff saying it gave up and how to retry, one Warning
 *   `GaveUp`, and no retry window (rec.gaveUp) until an edit or a reload.
 */
import { sizeText, messageOf } from '../api/index.js';
import type { OversizedLine } from '../pool/traffic.js';
import type { EventSink } from './events.js';
import type { Result } from './reconcile.js';
import type { LiveConnection, ServedLease, ServerRecord } from './server-record.js';

/** A record of either kind, as this file reads it. */
type AnyRecord = ServerRecord<unknown, ServedLease>;
type AnyLive = LiveConnection<unknown, ServedLease>;

export interface StatusDeps {
  readonly events: EventSink;
  now(): number;
  /** Delay before retry number `failures` (1-based). */
  backoff(failures: number): number;
  /** A connection up this long resets the failure count (60 s). */
  readonly stableAfterMs: number;
  /** Three failures in a row (or this many) show CrashLoopBackOff. */
  readonly crashLoopAfter: number;
}

/** When to stop restarting a server (language servers); absent: never (MCP servers). */
export interface RestartPolicy {
  /** False: a crash is not restarted at all. */
  readonly restartOnCrash: boolean;
  /** Consecutive failures (crashes and failed starts, before a stable run) still retried. */
  readonly maxRestarts: number;
  /** How the user retries after a give-up (names the entry's file and `mcpctl reload`). */
  readonly retryHint: string;
}

/**
 * The connection serves: Ready and UpToDate with `summary` (`3 tools`), or degraded if it
 * floods.
 */
export function markReady(
  d: StatusDeps,
  rec: AnyRecord,
  live: AnyLive,
  summary: string,
  now: number,
): void {
  for (const line of live.oversized?.splice(0) ?? [])
    d.events.record('Warning', 'MessageTooLarge', rec.object, oversizedMessage(rec.name, line));
  const flood = live.lease.flooding?.();
  if (flood && flood.note !== rec.floodNote) {
    // The message names the kinds, not the numbers: a flood that goes on counts up one event.
    d.events.record(
      'Warning',
      'Flooding',
      rec.object,
      `server ${rec.name} floods mcpctl (${flood.kinds.join(', ')} over its limits): the excess is dropped or read later, other servers are not slowed`,
    );
  }
  rec.floodNote = flood?.note;
  rec.setCondition(
    {
      type: 'Ready',
      status: 'True',
      reason: 'Connected',
      message: flood ? `${summary}; degraded: ${flood.note}` : summary,
    },
    now,
  );
  rec.setCondition({ type: 'UpToDate', status: 'True', reason: 'Current', message: '' }, now);
  if (now - live.connectedAt >= d.stableAfterMs) rec.failures = 0;
}

/** A connect of `connectionId` threw `err`: a login to wait for, or a failure to back off from. */
export function connectFailed(
  d: StatusDeps,
  rec: AnyRecord,
  connectionId: string,
  err: unknown,
  rolling: boolean,
  policy?: RestartPolicy,
): Result {
  // The pool's ConnectError carries the server's last stderr lines (describe shows them).
  const tail = (err as { stderrTail?: unknown }).stderrTail;
  if (Array.isArray(tail))
    rec.lastStderr = tail.filter((l): l is string => typeof l === 'string').map(rec.scrub);
  if ((err as { unauthorized?: unknown }).unauthorized === true && !rolling)
    return unauthorized(d, rec, connectionId, rec.scrub(messageOf(err)));
  return failed(d, rec, connectionId, rec.scrub(messageOf(err)), rolling, policy);
}

/** A connect failed: a rolling update keeps the old connection serving, else Ready backs off. */
function failed(
  d: StatusDeps,
  rec: AnyRecord,
  connectionId: string,
  message: string,
  rolling: boolean,
  policy?: RestartPolicy,
): Result {
  const now = d.now();
  const delay = countFailure(d, rec, connectionId, message, now);
  if (!rolling && policy && rec.failures > policy.maxRestarts) {
    giveUp(d, rec, connectionId, message, policy, now);
    return {};
  }
  if (rolling) {
    const retryAt = new Date(now + delay).toISOString();
    rec.setCondition(
      {
        type: 'UpToDate',
        status: 'False',
        reason: 'RolloutFailed',
        message: `${message}; the previous connection keeps serving; next try at ${retryAt}`,
      },
      now,
    );
    d.events.record('Warning', 'RolloutFailed', rec.object, message);
    return { requeueAfter: delay };
  }
  const crashLoop = backingOff(d, rec, message, delay, now);
  d.events.record(
    'Warning',
    crashLoop ? 'BackOff' : 'ConnectFailed',
    rec.object,
    `${message} (failure ${rec.failures}; next retry at ${new Date(now + delay).toISOString()})`,
  );
  return { requeueAfter: delay };
}

/** The server needs a login: Ready=False Unauthorized, no retry until one (no backoff spam). */
export function unauthorized(
  d: StatusDeps,
  rec: AnyRecord,
  connectionId: string,
  message: string,
): Result {
  const now = d.now();
  const first = rec.awaitingLogin === undefined && rec.lastError !== message;
  rec.awaitingLogin = connectionId;
  rec.retry = undefined;
  rec.failures = 0;
  rec.lastError = message;
  rec.setCondition({ type: 'Ready', status: 'False', reason: 'Unauthorized', message }, now);
  if (first) d.events.record('Warning', 'Unauthorized', rec.object, message);
  return {};
}

/** The pool lost `live` (already taken off the record): wait for a login, or back off. */
export function lost(
  d: StatusDeps,
  rec: AnyRecord,
  live: AnyLive,
  now: number,
  policy?: RestartPolicy,
): void {
  rec.lastStderr = live.lease.stderrTail().map(rec.scrub);
  const message = rec.scrub(`connection lost: ${live.lost ?? 'unknown'}`);
  if (live.lostCause === 'unauthorized') {
    d.events.record('Warning', 'Disconnected', rec.object, message);
    unauthorized(d, rec, live.connectionId, rec.scrub(live.lost ?? 'needs an OAuth login'));
    return;
  }
  if (now - live.connectedAt >= d.stableAfterMs) rec.failures = 0;
  const delay = countFailure(d, rec, live.connectionId, message, now);
  if (policy && (!policy.restartOnCrash || rec.failures > policy.maxRestarts)) {
    d.events.record('Warning', 'Disconnected', rec.object, message);
    giveUp(d, rec, live.connectionId, message, policy, now);
    return;
  }
  backingOff(d, rec, message, delay, now);
  d.events.record('Warning', 'Disconnected', rec.object, message);
  d.events.record(
    'Warning',
    'BackOff',
    rec.object,
    `restarting failed server in ${Math.round(delay / 1000)}s (failure ${rec.failures})`,
  );
}

/** One more failure of `connectionId` in a row: no retry of it before the delay returned. */
function countFailure(
  d: StatusDeps,
  rec: AnyRecord,
  connectionId: string,
  message: string,
  now: number,
): number {
  rec.failures += 1;
  const delay = d.backoff(rec.failures);
  rec.retry = { connectionId, at: now + delay };
  rec.lastError = message;
  return delay;
}

/** Ready=False until the retry; CrashLoopBackOff (returns true) from `crashLoopAfter` in a row. */
function backingOff(
  d: StatusDeps,
  rec: AnyRecord,
  message: string,
  delay: number,
  now: number,
): boolean {
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
  return crashLoop;
}

/** Past the restart policy: no more retries of `connectionId` until an edit or a reload. */
function giveUp(
  d: StatusDeps,
  rec: AnyRecord,
  connectionId: string,
  message: string,
  policy: RestartPolicy,
  now: number,
): void {
  rec.gaveUp = connectionId;
  rec.retry = undefined;
  const why = policy.restartOnCrash
    ? `gave up after ${rec.failures} consecutive failures (maxRestarts ${policy.maxRestarts})`
    : 'gave up: restartOnCrash is false';
  const text = `${message}; ${why}; ${policy.retryHint}`;
  rec.setCondition(
    { type: 'Ready', status: 'False', reason: 'CrashLoopBackOff', message: text },
    now,
  );
  d.events.record('Warning', 'GaveUp', rec.object, text);
}

/** What a dropped oversized message was, for its Warning event. */
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
