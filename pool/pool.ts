/**
 * The connection pool: every live MCP connection of a daemon, shared by its sessions.
 *
 * Guarantees:
 * - Keys: the connectionId, or `${connectionId}@${sessionId}` for `shared: false`, so equal
 *   configs share one connection (one pid) and unshared ones get one per session.
 * - `acquire` is single-flight per key: concurrent acquires start one connection; when that
 *   fails, every waiter is rejected with the same error and no entry is left.
 * - The pool decides nothing about admission: it only accepts an AdmissionTicket, and only
 *   for the session the ticket was made for, and only if the ticket's connectionId is the
 *   one of its config, workspace and environment (so a key always describes what runs under
 *   it, where and with which variables: sessions of two workspaces never share a stdio
 *   process that runs in one of them, nor two agents' sessions one started in the variables
 *   of one of them).
 * - Refs are a set of sessions. Who lets go says why (ReleaseReason): when the last ref goes
 *   because the config says stop (`config`), the connection closes at once — a connect in
 *   progress is cancelled — so a removed or refused server's process really ends; when it goes
 *   because its session ended (`sessionClosed`), the entry drains for `drainDelayMs` and then
 *   closes, and an acquire during the drain cancels it and gets the very same connection.
 * - Discovery (connect + initialize + listing every page of tools and, when declared,
 *   prompts) runs under one deadline: `discoveryTimeoutMs`, else 30 s stdio / 10 s remote.
 * - `tools/list_changed` and `prompts/list_changed` re-list (serialised per entry: one re-list
 *   in flight plus one pending, whatever the number of notifications) and then call each
 *   holder's `onListChanged`. Re-lists stay within the entry's budget (a few per second);
 *   past it the next one waits and the changes meanwhile coalesce into it.
 * - Every connection has its own traffic budgets (traffic.ts): notifications and requests
 *   from the server past the budget are dropped, a stdio server's output past its line budget
 *   is read later. While one floods, `lease.flooding()` says how and holders hear
 *   `onFlooding` (at most once per report interval); other connections are not slowed.
 * - A stdio server's message over the size limit fails only the request it answers (see
 *   stdio-transport.ts) and holders hear `onOversized` once per such message; the connection
 *   stays, for every session.
 * - A connection that dies unexpectedly (exit, fatal transport error, close) is marked
 *   failed, removed, closed (process group gone), and then every holder's `onLost(reason)`
 *   is called once. Callbacks that throw are reported, never break the pool.
 * - Every server process is in the state file (when one is given) while it may be alive.
 * - `close()` closes every connection, including draining and still-connecting ones, and
 *   resolves when all are gone. Holders are not told (shutting down is not a loss).
 * - Agents (agent-routing.ts): `request` sends any MCP request for an agent and resolves with
 *   the server's result as sent; the agent's `progressToken` never reaches the server (the
 *   SDK sends one of its own per request), progress goes to that request's `onprogress` only
 *   while it is pending; errors are the server's McpError with credentials hidden. `attach`
 *   lets an agent hear the server and answer its requests; attachments end silently with the
 *   connection. Subscriptions and the logging level are the attachment's, never `request`'s.
 */
import {
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Progress,
  type Prompt,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { connectionIdOf, urlOf, type McpServerConfig } from '../api/index.js';
import { settleOrAbandon } from './abort.js';
import { createConnector, discoveryTimeoutOf } from './connector.js';
import {
  ConnectError,
  DiscoveryDeadline,
  DiscoveryTimeoutError,
  messageOf,
  PoolError,
  scrubUrl,
} from './errors.js';
import { listAllPrompts, listAllTools } from './listing.js';
import { AgentRouter } from './agent-routing.js';
import { DirectRequests } from './direct-requests.js';
import { pipeInbound, type InboundStep } from './inbound.js';
import { DEFAULT_TRAFFIC_LIMITS, TrafficGuard, type TrafficLimits } from './traffic.js';
import { ProcessRecorder } from './orphans.js';
import type { OAuthManager } from './oauth.js';
import type { AdmissionTicket } from './ticket.js';
import type {
  AgentPeer,
  Attachment,
  Connected,
  Connector,
  EntryState,
  Holder,
  Lease,
  LostCause,
  McpMessage,
  Pool,
  PoolEntryStats,
  ReleaseOptions,
  RequestOptions,
} from './types.js';

export interface PoolOptions {
  /** Opens connections. Default: the SDK's real transports (createConnector). */
  readonly connector?: Connector;
  /** ms an entry with no refs stays open for a re-acquire. Default 30 000. */
  readonly drainDelayMs?: number;
  /**
   * Where to record server processes for reapOrphans(). Default: no record. Reap the file of
   * the previous run (`reapOrphans(stateFile)`) before creating the pool: the pool's first
   * write replaces it.
   */
  readonly stateFile?: string;
  /** stdio close grace (after ending stdin, and after SIGTERM). Default 1000. */
  readonly graceMs?: number;
  /** The clock for `startedAt` (ms since the epoch). Default Date.now. */
  readonly now?: () => number;
  /** Problems that fail nothing but someone should see (state file, throwing callbacks). */
  readonly onWarning?: (message: string) => void;
  /** Per-connection budgets (default DEFAULT_TRAFFIC_LIMITS); tests use small ones. */
  readonly trafficLimits?: TrafficLimits;
  /** OAuth grants of remote servers, shared by every connection (default: no OAuth). */
  readonly oauth?: OAuthManager;
  /** Set in every stdio server's environment, over its session's (see ConnectorOptions). */
  readonly serverEnv?: Readonly<Record<string, string>>;
}

export const DEFAULT_DRAIN_DELAY_MS = 30_000;
export const DEFAULT_TOOL_CALL_TIMEOUT_MS = 10 * 60_000;

type ListKind = 'tools' | 'prompts';

interface Waiter {
  readonly sessionId: string;
  readonly resolve: (lease: Lease) => void;
  readonly reject: (err: Error) => void;
}

interface Entry {
  readonly key: string;
  readonly connectionId: string;
  readonly name: string;
  readonly config: McpServerConfig;
  readonly discoveryTimeoutMs: number;
  state: EntryState;
  readonly holders: Map<string, Holder>;
  waiters: Waiter[];
  /** Aborted when the discovery deadline passes or the entry is no longer wanted. */
  readonly abort: AbortController;
  connected?: Connected;
  tools: Tool[];
  prompts: Prompt[];
  readonly createdAt: Date;
  startedAt?: Date;
  drainTimer?: NodeJS.Timeout;
  drainEndsAt?: Date;
  /** Set (synchronously) once we decided to close it: a close after this is expected. */
  stopping: boolean;
  /** Why it went down on its own (first reason wins). */
  downReason?: string;
  closed?: Promise<void>;
  readonly dirty: Set<ListKind>;
  refreshing?: Promise<void>;
  /** The connection's budgets, once connected. */
  traffic?: TrafficGuard;
  /** The agents behind the connection: who answers the server's requests, who hears it. */
  readonly router: AgentRouter;
  /** Progress handlers of requests in flight, by the token the pool sent (see request()). */
  readonly progress: Map<string, (progress: Progress) => void>;
  nextProgress: number;
  /** Agents' requests sent beside the SDK client (direct-requests.ts); set once connected. */
  direct?: DirectRequests;
}

const isLive = (e: Entry): boolean => e.state === 'ready' || e.state === 'draining';

export function createPool(options: PoolOptions = {}): Pool {
  const drainDelayMs = options.drainDelayMs ?? DEFAULT_DRAIN_DELAY_MS;
  const now = options.now ?? Date.now;
  const warn = options.onWarning ?? (() => undefined);
  const trafficLimits = options.trafficLimits ?? DEFAULT_TRAFFIC_LIMITS;
  const recorder =
    options.stateFile !== undefined ? new ProcessRecorder(options.stateFile, warn) : undefined;
  const connector =
    options.connector ??
    createConnector({
      graceMs: options.graceMs,
      onSpawn: (pid, ticket) =>
        recorder?.add(pid, { connectionId: ticket.connectionId, command: ticket.config.command }),
      // A descendant that left the server's group is reaped after a hard kill too.
      onDescendant: (pid, ticket) =>
        recorder?.add(pid, {
          connectionId: ticket.connectionId,
          command: `a descendant of ${ticket.config.command ?? 'the server'}`,
        }),
      onGone: (pid) => recorder?.remove(pid),
      traffic: () => new TrafficGuard(trafficLimits),
      ...(options.oauth ? { oauth: options.oauth } : {}),
      ...(options.serverEnv ? { serverEnv: options.serverEnv } : {}),
    });
  // After an abort, how long a connector gets to clean up (kill its process) and reject.
  // (The default connector needs at most two graces plus its 3 s reap wait.)
  const abandonAfterMs = 2 * (options.graceMs ?? 1000) + 4000;

  const entries = new Map<string, Entry>();
  /** Connects and closes in flight, so close() can wait for all of them. */
  const inFlight = new Set<Promise<unknown>>();
  let closing: Promise<void> | undefined;

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    const drop = (): void => {
      inFlight.delete(p);
    };
    p.then(drop, drop);
    return p;
  }

  function safeCall(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      warn(`${what} threw: ${messageOf(err)}`);
    }
  }

  function leaseOf(entry: Entry): Lease {
    const startedAt = entry.startedAt ?? new Date(now());
    return {
      key: entry.key,
      connectionId: entry.connectionId,
      get pid() {
        return entry.connected?.pid;
      },
      startedAt,
      tools: () => entry.tools,
      prompts: () => entry.prompts,
      // After the entry is gone the last lines stay readable: they say why it went.
      stderrTail: () => entry.connected?.stderrTail() ?? [],
      flooding: () => entry.traffic?.report(),
      serverCapabilities: () => entry.connected?.client.getServerCapabilities(),
      serverVersion: () => entry.connected?.client.getServerVersion(),
      instructions: () => entry.connected?.client.getInstructions(),
    };
  }

  function removeFromMap(entry: Entry): void {
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
  }

  function cancelDrain(entry: Entry): void {
    entry.drainEndsAt = undefined;
    if (entry.drainTimer !== undefined) {
      clearTimeout(entry.drainTimer);
      entry.drainTimer = undefined;
    }
  }

  /** Ends the entry's connection; idempotent. */
  function closeEntry(entry: Entry): Promise<void> {
    entry.stopping = true;
    cancelDrain(entry);
    // Agents stop hearing it at once; their attachments end silently.
    entry.router.close();
    entry.closed ??= track(
      (async () => {
        entry.abort.abort(new PoolError('connection closed'));
        entry.traffic?.close();
        const c = entry.connected;
        if (c) {
          try {
            await (c.close ? c.close() : c.client.close());
          } catch (err) {
            warn(`server "${entry.name}": closing the connection failed: ${messageOf(err)}`);
          }
          if (c.pid !== undefined) recorder?.remove(c.pid);
        }
        if (entry.state !== 'failed') entry.state = 'closed';
      })(),
    );
    return entry.closed;
  }

  function retire(entry: Entry): void {
    removeFromMap(entry);
    void closeEntry(entry);
  }

  function maybeDrain(entry: Entry): void {
    if (entry.holders.size > 0 || entry.state !== 'ready') return;
    if (drainDelayMs <= 0) {
      retire(entry);
      return;
    }
    entry.state = 'draining';
    entry.drainEndsAt = new Date(now() + drainDelayMs);
    entry.drainTimer = setTimeout(() => {
      entry.drainTimer = undefined;
      if (entry.state === 'draining') retire(entry);
    }, drainDelayMs);
    // A pending drain must not keep the daemon alive; close() ends it anyway.
    entry.drainTimer.unref();
  }

  /**
   * Nobody holds it and the config said stop: end it now. A connect in progress is cancelled
   * (discover() sees the abort and closes what was opened); a new acquire of the key meanwhile
   * starts a fresh entry instead of joining one that is going away.
   */
  function closeUnwanted(entry: Entry): void {
    if (entry.state === 'connecting') {
      removeFromMap(entry);
      entry.abort.abort(new PoolError('released: no session wants it any more'));
    } else if (isLive(entry)) {
      retire(entry);
    }
  }

  /** The connection went away on its own. */
  function onDown(entry: Entry, reason: string, cause: LostCause = 'failed'): void {
    if (entry.stopping || entry.downReason !== undefined) return;
    entry.downReason = reason;
    // While connecting, the discovery in progress fails and reports it (with this reason).
    if (!isLive(entry)) return;
    entry.state = 'failed';
    removeFromMap(entry);
    const holders = [...entry.holders.values()];
    entry.holders.clear();
    const url = urlOf(entry.config);
    const hidden = entry.connected?.scrub ? entry.connected.scrub(reason) : reason;
    const message = `server "${entry.name}": ${url !== undefined ? scrubUrl(hidden, url) : hidden}`;
    // Tell holders after the close, so the process group is gone and the stderr tail complete
    // when they look at it or reconnect.
    void closeEntry(entry).then(() => {
      for (const h of holders)
        safeCall(`onLost of session ${h.sessionId}`, () => h.onLost(message, cause));
    });
  }

  function watch(entry: Entry, c: Connected): void {
    entry.router.bind(c.client, c.scrub?.bind(c));
    const previousOnClose = c.client.onclose;
    c.client.onclose = () => {
      previousOnClose?.();
      entry.direct?.close();
      onDown(entry, 'connection closed');
    };
    const previousOnError = c.transport.onerror;
    c.transport.onerror = (error: Error) => {
      previousOnError?.(error);
      let fatal = true;
      try {
        fatal = c.isFatalError ? c.isFatalError(error) : true;
      } catch {
        fatal = true;
      }
      if (fatal) onDown(entry, error.message);
    };
    const traffic = c.traffic ?? new TrafficGuard(trafficLimits);
    entry.traffic = traffic;
    const direct = new DirectRequests(c.transport);
    entry.direct = direct;
    const router = entry.router;
    const overBudget: InboundStep = (message) => 'method' in message && !traffic.admitMessage();
    // Every message from the server, top to bottom; a step that returns true took it.
    const pipeline: InboundStep[] = [
      // 1. Answers to agents' requests sent beside the SDK Client; an answer gives its line
      //    back to the budget (traffic.ts), one nobody waits for any more is dropped.
      (message) => {
        const taken = direct.take(message);
        if (taken === 'answer') traffic.refundLine();
        return taken !== 'other';
      },
      // 2. Progress, to the request in flight it belongs to, in the order it came (see
      //    request()); progress for a request no longer in flight is dropped.
      (message) => {
        if (
          !('method' in message) ||
          message.method !== 'notifications/progress' ||
          'id' in message
        )
          return false;
        const { progressToken, ...progress } = (message.params ?? {}) as Record<string, unknown>;
        const handler =
          typeof progressToken === 'string' ? entry.progress.get(progressToken) : undefined;
        if (handler && typeof progress.progress === 'number') handler(progress as Progress);
        return true;
      },
      // 3. The message budget, before the SDK Client sees it: a message over the budget costs
      //    nothing more (stdio applies it itself, before a line is even validated).
      ...(c.traffic === undefined ? [overBudget] : []),
      // 4. The server cancelled its request 0 (the SDK does not see it: agent-routing.ts).
      (message) => {
        router.watchCancel(message);
        return false;
      },
      // 5. The rest: the SDK Client.
    ];
    pipeInbound(c.transport, pipeline);
    traffic.onChange(() => {
      if (!isLive(entry)) return;
      for (const h of [...entry.holders.values()]) {
        if (h.onFlooding) {
          const notify = h.onFlooding.bind(h);
          safeCall(`onFlooding of session ${h.sessionId}`, notify);
        }
      }
    });
    traffic.onOversized((line) => {
      if (!isLive(entry)) return;
      for (const h of [...entry.holders.values()]) {
        if (h.onOversized) {
          const notify = h.onOversized.bind(h);
          safeCall(`onOversized of session ${h.sessionId}`, () => notify(line));
        }
      }
    });
    c.onUnauthorized?.(() =>
      onDown(entry, `the OAuth sign-in is gone (mcpctl login ${entry.name})`, 'unauthorized'),
    );
    c.client.setNotificationHandler(ToolListChangedNotificationSchema, () =>
      refresh(entry, 'tools'),
    );
    c.client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
      refresh(entry, 'prompts'),
    );
  }

  /** Re-lists after a list_changed notification; serialised, coalesced per entry. */
  function refresh(entry: Entry, kind: ListKind): void {
    entry.dirty.add(kind);
    if (entry.refreshing || !isLive(entry)) return; // connecting: runs once ready
    entry.refreshing = (async () => {
      try {
        while (entry.dirty.size > 0 && isLive(entry) && entry.connected) {
          // Over the budget: wait; notifications meanwhile only mark the entry dirty.
          const wait = entry.traffic?.takeRelist() ?? 0;
          if (wait > 0) {
            await sleep(wait, entry.abort.signal);
            continue;
          }
          const kinds = [...entry.dirty];
          entry.dirty.clear();
          const opts = { timeout: entry.discoveryTimeoutMs, signal: entry.abort.signal };
          for (const k of kinds) {
            if (k === 'tools') entry.tools = await listAllTools(entry.connected.client, opts);
            else entry.prompts = await listAllPrompts(entry.connected.client, opts);
          }
          if (!isLive(entry)) return;
          for (const h of [...entry.holders.values()]) {
            if (h.onListChanged) {
              const notify = h.onListChanged.bind(h);
              safeCall(`onListChanged of session ${h.sessionId}`, notify);
            }
          }
        }
      } catch (err) {
        // A dead connection is reported by onDown; anything else leaves the old list in place.
        if (isLive(entry)) {
          const failure = `server "${entry.name}": re-listing after list_changed failed: ${messageOf(err)}`;
          warn(entry.connected?.scrub ? entry.connected.scrub(failure) : failure);
        }
      } finally {
        entry.refreshing = undefined;
      }
    })();
  }

  function connectFailure(entry: Entry, phase: string, err: unknown): Error {
    const tail = entry.connected?.stderrTail() ?? [];
    const reason: unknown = entry.abort.signal.reason;
    if (reason instanceof DiscoveryDeadline) {
      return err instanceof DiscoveryTimeoutError
        ? err
        : new DiscoveryTimeoutError(entry.name, phase, reason.timeoutMs, tail);
    }
    if (err instanceof ConnectError) return err;
    if (entry.abort.signal.aborted) {
      return new ConnectError(entry.name, phase, `connect cancelled: ${messageOf(reason)}`, tail);
    }
    if (entry.downReason !== undefined) {
      const down = entry.connected?.scrub
        ? entry.connected.scrub(entry.downReason)
        : entry.downReason;
      return new ConnectError(entry.name, phase, `${down} during ${phase}`, tail, {
        cause: err,
      });
    }
    const url = urlOf(entry.config);
    const raw = entry.connected?.scrub ? entry.connected.scrub(messageOf(err)) : messageOf(err);
    const text = url !== undefined ? scrubUrl(raw, url) : raw;
    return new ConnectError(entry.name, phase, `${phase} failed: ${text}`, tail, { cause: err });
  }

  async function discover(entry: Entry, ticket: AdmissionTicket): Promise<void> {
    const signal = entry.abort.signal;
    const deadline = setTimeout(
      () => entry.abort.abort(new DiscoveryDeadline(entry.discoveryTimeoutMs)),
      entry.discoveryTimeoutMs,
    );
    let phase = 'connect';
    try {
      const connected = await settleOrAbandon(
        connector(ticket, signal, (client) => entry.router.install(client)),
        signal,
        abandonAfterMs,
        (late) => {
          // The connector finished after we gave up on it: close what it opened.
          void (late.close ? late.close() : late.client.close()).catch(() => undefined);
        },
      );
      entry.connected = connected;
      if (connected.pid !== undefined) {
        recorder?.add(connected.pid, {
          connectionId: entry.connectionId,
          command: entry.config.command,
        });
      }
      if (signal.aborted) throw abortReason(signal);
      watch(entry, connected);
      const opts = { timeout: entry.discoveryTimeoutMs, signal };
      phase = 'tools/list';
      entry.tools = await listAllTools(connected.client, opts);
      phase = 'prompts/list';
      entry.prompts = await listAllPrompts(connected.client, opts);
      if (signal.aborted) throw abortReason(signal);
      if (entry.downReason !== undefined) throw new Error(entry.downReason);
    } catch (err) {
      clearTimeout(deadline);
      const error = connectFailure(entry, phase, err);
      entry.state = 'failed';
      removeFromMap(entry);
      entry.holders.clear();
      const waiters = entry.waiters;
      entry.waiters = [];
      // Kill first, then report: nobody hears "failed" while the process still runs.
      await closeEntry(entry);
      for (const w of waiters) w.reject(error);
      return;
    }
    clearTimeout(deadline);
    entry.state = 'ready';
    entry.startedAt = new Date(now());
    const lease = leaseOf(entry);
    const waiters = entry.waiters;
    entry.waiters = [];
    for (const w of waiters) w.resolve(lease);
    if (entry.dirty.size > 0) {
      const kinds = [...entry.dirty];
      entry.dirty.clear();
      for (const k of kinds) refresh(entry, k);
    }
    maybeDrain(entry);
  }

  function keyOf(ticket: AdmissionTicket): string {
    return ticket.config.shared === false
      ? `${ticket.connectionId}@${ticket.sessionId}`
      : ticket.connectionId;
  }

  const pool: Pool = {
    acquire(ticket: AdmissionTicket, holder: Holder): Promise<Lease> {
      if (closing) return Promise.reject(new PoolError('the pool is closed'));
      if (holder.sessionId !== ticket.sessionId) {
        return Promise.reject(
          new PoolError(
            `server "${ticket.name}": the ticket was admitted for session ${ticket.sessionId}, not for ${holder.sessionId}`,
          ),
        );
      }
      let expected: string;
      try {
        expected = connectionIdOf(ticket.name, ticket.config, ticket.cwd, ticket.env);
      } catch (err) {
        return Promise.reject(new PoolError(`server "${ticket.name}": ${messageOf(err)}`));
      }
      if (expected !== ticket.connectionId) {
        return Promise.reject(
          new PoolError(
            `server "${ticket.name}": ticket connectionId ${ticket.connectionId} does not match its config (${expected})`,
          ),
        );
      }
      const key = keyOf(ticket);
      let entry = entries.get(key);
      if (!entry) {
        // What a remote server says may carry our credentials (it echoes them in errors).
        const made: { entry?: Entry } = {};
        const scrubbedWarn = (message: string) =>
          warn(made.entry?.connected?.scrub?.(message) ?? message);
        entry = {
          key,
          connectionId: ticket.connectionId,
          name: ticket.name,
          config: ticket.config,
          discoveryTimeoutMs: discoveryTimeoutOf(ticket.config),
          state: 'connecting',
          holders: new Map(),
          waiters: [],
          abort: new AbortController(),
          tools: [],
          prompts: [],
          createdAt: new Date(now()),
          stopping: false,
          dirty: new Set(),
          router: new AgentRouter({ key, server: ticket.name, warn: scrubbedWarn }),
          progress: new Map(),
          nextProgress: 0,
        };
        made.entry = entry;
        entries.set(key, entry);
        void track(discover(entry, ticket));
      }
      const e = entry;
      // A session holds a key once; a second acquire by it only refreshes its callbacks.
      e.holders.set(holder.sessionId, holder);
      // Whose workspace the connection serves decides where its requests and roots may go.
      e.router.hold(holder.sessionId, ticket.cwd);
      if (e.state === 'draining') {
        cancelDrain(e);
        e.state = 'ready';
      }
      if (e.state === 'ready') return Promise.resolve(leaseOf(e));
      return new Promise<Lease>((resolve, reject) => {
        e.waiters.push({ sessionId: holder.sessionId, resolve, reject });
      });
    },

    release(key: string, sessionId: string, { reason }: ReleaseOptions): void {
      const entry = entries.get(key);
      if (!entry) return;
      const held = entry.holders.delete(sessionId);
      if (held) entry.router.unhold(sessionId);
      const mine = entry.waiters.filter((w) => w.sessionId === sessionId);
      if (mine.length > 0) {
        entry.waiters = entry.waiters.filter((w) => w.sessionId !== sessionId);
        const err = new PoolError(
          `server "${entry.name}": released by session ${sessionId} before the connection was ready`,
        );
        for (const w of mine) w.reject(err);
      }
      // Only a session that held it may end it; another session's ref keeps it either way.
      if (!held && mine.length === 0) return;
      if (entry.holders.size > 0 || entry.waiters.length > 0) return;
      if (reason === 'config') closeUnwanted(entry);
      else maybeDrain(entry);
    },

    releaseSession(sessionId: string): void {
      for (const entry of [...entries.values()]) {
        if (entry.holders.has(sessionId) || entry.waiters.some((w) => w.sessionId === sessionId)) {
          pool.release(entry.key, sessionId, { reason: 'sessionClosed' });
        }
      }
    },

    async request(
      key: string,
      message: McpMessage,
      requestOptions: RequestOptions = {},
    ): Promise<Record<string, unknown>> {
      const entry = liveEntry(key);
      const owner = RESERVED_METHODS.get(message.method);
      if (owner !== undefined) {
        throw new PoolError(
          `server "${entry.name}": ${message.method} is not sent through request(); ${owner}`,
        );
      }
      const { caller, onprogress } = requestOptions;
      // Our own token, unique on this connection (two agents' tokens must never clash), and
      // our own dispatch (watch()): the SDK hands progress over a microtask later than the
      // answer, so the last step before an answer in the same read would be lost.
      const token = onprogress ? `mcpctl-${(entry.nextProgress += 1)}` : undefined;
      if (token !== undefined && onprogress)
        entry.progress.set(token, (p) =>
          safeCall(`onprogress of ${message.method}`, () => onprogress(p)),
        );
      const done = caller ? entry.router.track(caller) : undefined;
      try {
        return await hideCredentials(
          entry.connected,
          (entry.direct ?? fail(entry)).request(
            { method: message.method, params: withProgressToken(message.params, token) },
            {
              ...(requestOptions.signal ? { signal: requestOptions.signal } : {}),
              timeout:
                requestOptions.timeout ?? entry.config.timeout ?? DEFAULT_TOOL_CALL_TIMEOUT_MS,
            },
          ),
        );
      } finally {
        // Progress reaches the caller only while its request is pending.
        if (token !== undefined) entry.progress.delete(token);
        done?.();
      }
    },

    attach(key: string, peer: AgentPeer): Attachment {
      return liveEntry(key).router.attach(peer);
    },

    stats(): PoolEntryStats[] {
      return [...entries.values()].map((e) => ({
        key: e.key,
        connectionId: e.connectionId,
        name: e.name,
        state: e.state,
        refs: [...e.holders.keys()].sort(),
        pid: e.connected?.pid,
        createdAt: e.createdAt,
        startedAt: e.startedAt,
        drainEndsAt: e.drainEndsAt,
        tools: e.tools.length,
        prompts: e.prompts.length,
      }));
    },

    close(): Promise<void> {
      closing ??= (async () => {
        for (const entry of [...entries.values()]) {
          if (entry.state === 'connecting') {
            // discover() sees the abort, closes what was opened and rejects its waiters.
            entry.abort.abort(new PoolError('the pool is closing'));
          } else {
            retire(entry);
          }
        }
        entries.clear();
        // Closing may start more work (a connect finishing); wait until nothing is left.
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      })();
      return closing;
    },
  };

  function liveEntry(key: string): Entry & { connected: Connected } {
    const entry = entries.get(key);
    if (!entry || !isLive(entry) || !entry.connected) {
      throw new PoolError(`no live connection for ${key}`);
    }
    return entry as Entry & { connected: Connected };
  }

  return pool;
}

/**
 * Requests that would let one agent change what the connection does for the others; each has
 * its refcounted way on the Attachment (or belongs to the pool alone).
 */
const RESERVED_METHODS = new Map<string, string>([
  ['initialize', 'the pool initializes each connection once'],
  ['resources/subscribe', 'use Attachment.subscribe (refcounted over the agents)'],
  ['resources/unsubscribe', 'use Attachment.unsubscribe (refcounted over the agents)'],
  ['logging/setLevel', 'use Attachment.setLogLevel (the most verbose level of the agents)'],
]);

/**
 * The params without the agent's progress token: it names a request of the agent's connection,
 * not of ours, and must not reach a server shared with other agents.
 */
/**
 * The params with the agent's progress token replaced by ours (`token`), or removed when the
 * caller wants no progress: an agent's token must never reach a server shared with others.
 */
/** A live entry always has its direct requests; this says so if one ever did not. */
function fail(entry: Entry): never {
  throw new PoolError(`server "${entry.name}" is not connected`);
}

function withProgressToken(
  params: Record<string, unknown> | undefined,
  token: string | undefined,
): Record<string, unknown> | undefined {
  const stripped = withoutProgressToken(params);
  if (token === undefined) return stripped;
  const meta = stripped?.['_meta'];
  const rest = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {};
  return { ...stripped, _meta: { ...rest, progressToken: token } };
}

function withoutProgressToken(
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const meta = params?.['_meta'];
  if (params === undefined || typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    return params;
  }
  if (!('progressToken' in meta)) return params;
  const rest: Record<string, unknown> = { ...(meta as Record<string, unknown>) };
  delete rest['progressToken'];
  const others: Record<string, unknown> = { ...params };
  delete others['_meta'];
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

/**
 * A failed call's message with the connection's credentials hidden: a transport error quotes
 * the server's answer, which may echo the token we sent. The error itself is kept (its class
 * and code say what happened).
 */
async function hideCredentials<T>(c: Connected, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (c.scrub && err instanceof Error) err.message = c.scrub(err.message);
    throw err;
  }
}
