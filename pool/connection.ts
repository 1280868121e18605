/**
 * One live MCP connection to one server: it owns the Transport and the SDK Client the
 * connector opened, declares the path every message from the server takes (its inbound
 * pipeline, below), keeps the server's tools and prompts, sends agents' requests, and ends.
 * The pool (pool.ts) decides when it opens and closes and who holds it.
 *
 * Why one file of ~450 lines: open, the inbound pipeline, requests, loss and close all read one
 * state (the OpenedClient, the deadline, why it went down); the parts that stand alone live
 * beside it (direct-requests.ts, progress.ts, server-lists.ts, traffic.ts, inbound.ts,
 * agent-routing.ts).
 *
 * Guarantees:
 * - `open()`: connect + initialize + listing every page of tools and, when declared, prompts,
 *   under one deadline (`discoveryTimeoutMs`, else 30 s stdio / 10 s remote). It fails with a
 *   ConnectError naming the server and the phase (a DiscoveryTimeoutError past the deadline),
 *   credentials hidden. `cancel()` stops it; a connector that answers too late is closed.
 * - Inbound pipeline, in this order (one list, `#watch`): answers to our direct requests →
 *   the message budget, where the transport does not apply it itself (so progress is within
 *   it too) → progress of agents' requests → the cancel watch (server-requests.ts) → the SDK
 *   Client (its own answers, the server's requests to server-requests.ts's handlers,
 *   list_changed here, every other notification to the agents: agent-routing.ts).
 * - `tools/list_changed` and `prompts/list_changed` re-list (serialised: one re-list in flight
 *   plus one pending, whatever the number of notifications) and then call each holder's
 *   `onListChanged`. Re-lists stay within the connection's budget (a few per second); past it
 *   the next one waits and the changes meanwhile coalesce into it.
 * - Its own traffic budgets (traffic.ts): past them the server's notifications and requests
 *   are dropped and a stdio server's output is read later; holders hear `onFlooding` (at most
 *   once per report interval) and `onOversized` once per message over the size limit (which
 *   fails only the request it answers: stdio-transport.ts); the lease's `flooding()` says how.
 * - It goes down on its own (exit, fatal transport error, close, its OAuth grant gone) at most
 *   once, and never after `close()`: the pool hears `lost` with the server's name and the
 *   reason, credentials and URL secrets hidden. While opening, `open()` fails with it instead.
 * - `request()` (Pool.request) and `attach()` (agent-routing.ts) are the agents' ways in; the
 *   agent's progress token never reaches the server (progress.ts).
 * - Its server process is in the state file (when the pool keeps one) while it may be alive.
 * - `close()`: agents stop hearing it at once, their attachments end silently; resolves when
 *   the connection is gone (stdio: the process group). Idempotent, never rejects.
 */
import {
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_SERVER, urlOf, type McpServerConfig } from '../api/index.js';
import { settleOrAbandon } from './abort.js';
import { AgentRouter } from './agent-routing.js';
import { discoveryTimeoutOf } from './connector.js';
import { DirectRequests } from './direct-requests.js';
import {
  callSafely,
  ConnectError,
  DiscoveryDeadline,
  DiscoveryTimeoutError,
  messageOf,
  PoolError,
  scrubUrl,
} from './errors.js';
import { pipeInbound, type InboundStep } from './inbound.js';
import type { ProcessRecorder } from '../proc/index.js';
import type { ConnectionActivity, ConnectionHost, LostCause, PooledConnection } from './pool.js';
import { ProgressRoutes, withProgressToken } from './progress.js';
import { ServerLists } from './server-lists.js';
import type { AdmissionTicket } from './ticket.js';
import { TrafficGuard, type TrafficLimits } from './traffic.js';
import type {
  Attachment,
  Connector,
  Holder,
  Lease,
  McpMessage,
  OpenedClient,
  PoolAgent,
  RequestOptions,
} from './types.js';

export const DEFAULT_TOOL_CALL_TIMEOUT_MS = 10 * 60_000;

/** What every connection of one pool shares. */
export interface McpConnectionDeps {
  /** Opens the Transport and the Client (connector.ts, or an in-memory one in tests). */
  readonly connector: Connector;
  /** Where server processes are recorded for reapOrphans(); undefined: nowhere. */
  readonly recorder: ProcessRecorder | undefined;
  /** The budgets of a connection whose transport brings none (stdio brings its own). */
  readonly trafficLimits: TrafficLimits;
  /** After a cancel, how long the connector gets to clean up (kill its process) and reject. */
  readonly abandonAfterMs: number;
  /** Problems that fail nothing but someone should see. */
  readonly warn: (message: string) => void;
}

export class McpConnection implements PooledConnection<AdmissionTicket> {
  readonly key: string;
  readonly connectionId: string;
  /** The server's name in the config. */
  readonly name: string;
  readonly #ticket: AdmissionTicket;
  readonly #config: McpServerConfig;
  readonly #discoveryTimeoutMs: number;
  readonly #host: ConnectionHost<Holder>;
  readonly #deps: McpConnectionDeps;
  /** Aborted when the discovery deadline passes, or when the connection is not wanted. */
  readonly #abort = new AbortController();
  /** The agents behind the connection: who answers the server's requests, who hears it. */
  readonly #router: AgentRouter;
  readonly #progress = new ProgressRoutes();
  /** Set once the connector opened it (also while opening fails, so close() ends it). */
  #opened: OpenedClient | undefined;
  /** Agents' requests sent beside the SDK Client (direct-requests.ts); set with #watch. */
  #direct: DirectRequests | undefined;
  #traffic: TrafficGuard | undefined;
  /** The server's tools and prompts. */
  readonly #lists: ServerLists;
  /** Agents' requests in flight and when the last was sent or answered (the idle stop). */
  #inFlight = 0;
  #lastActiveAt = Date.now();
  /** Why it went down on its own (the first reason wins). */
  #down: { readonly reason: string; readonly cause: LostCause } | undefined;
  /** Set (synchronously) by close(): a close after this is expected, not a loss. */
  #stopping = false;
  #closed: Promise<void> | undefined;

  constructor(
    ticket: AdmissionTicket,
    key: string,
    host: ConnectionHost<Holder>,
    deps: McpConnectionDeps,
  ) {
    this.key = key;
    this.connectionId = ticket.connectionId;
    this.name = ticket.name;
    this.#ticket = ticket;
    this.#config = ticket.config;
    this.#discoveryTimeoutMs = discoveryTimeoutOf(ticket.config);
    this.#host = host;
    this.#deps = deps;
    // What a remote server says may carry our credentials (it echoes them in errors).
    this.#router = new AgentRouter({
      key,
      server: ticket.name,
      warn: (message) => deps.warn(this.#scrub(message)),
    });
    this.#lists = new ServerLists({
      client: () => this.#opened?.client,
      live: () => host.live(),
      relistWait: () => this.#traffic?.takeRelist() ?? 0,
      signal: this.#abort.signal,
      timeoutMs: this.#discoveryTimeoutMs,
      onChanged: () => this.#tell('onListChanged', (h) => h.onListChanged?.()),
      onFailed: (err) =>
        deps.warn(
          this.#scrub(
            `server "${this.name}": re-listing after list_changed failed: ${messageOf(err)}`,
          ),
        ),
    });
  }

  get pid(): number | undefined {
    return this.#opened?.pid;
  }

  async open(): Promise<void> {
    const signal = this.#abort.signal;
    const deadline = setTimeout(
      () => this.#abort.abort(new DiscoveryDeadline(this.#discoveryTimeoutMs)),
      this.#discoveryTimeoutMs,
    );
    let phase = 'connect';
    try {
      const opened = await settleOrAbandon(
        this.#deps.connector(this.#ticket, signal, (client) => this.#router.install(client)),
        signal,
        this.#deps.abandonAfterMs,
        (late) => {
          // The connector finished after we gave up on it: close what it opened.
          void (late.close ? late.close() : late.client.close()).catch(() => undefined);
        },
      );
      this.#opened = opened;
      if (opened.pid !== undefined) {
        this.#deps.recorder?.add(opened.pid, {
          kind: MCP_SERVER,
          connectionId: this.connectionId,
          command: this.#config.command,
        });
      }
      if (signal.aborted) throw abortReason(signal);
      this.#watch(opened);
      phase = 'tools/list';
      await this.#lists.list('tools', opened.client);
      phase = 'prompts/list';
      await this.#lists.list('prompts', opened.client);
      if (signal.aborted) throw abortReason(signal);
      if (this.#down !== undefined) throw new Error(this.#down.reason);
    } catch (err) {
      clearTimeout(deadline);
      throw this.#connectFailure(phase, err);
    }
    clearTimeout(deadline);
  }

  ready(): void {
    this.#lastActiveAt = Date.now();
    // It went down after open() checked last: the pool hears it now, as any later loss.
    if (this.#down !== undefined) {
      this.#host.lost(this.#lostMessage(this.#down.reason), this.#down.cause);
      return;
    }
    // list_changed that came while opening re-lists now.
    this.#lists.flush();
  }

  hold(sessionId: string, ticket: AdmissionTicket): void {
    // Whose workspace the connection serves decides where its requests and roots may go.
    this.#router.hold(sessionId, ticket.cwd);
  }

  unhold(sessionId: string): void {
    this.#router.unhold(sessionId);
  }

  cancel(reason: Error): void {
    this.#abort.abort(reason);
  }

  close(): Promise<void> {
    this.#stopping = true;
    // Agents stop hearing it at once; their attachments end silently.
    this.#router.close();
    this.#closed ??= this.#end();
    return this.#closed;
  }

  lease(startedAt: Date): Lease {
    const pid = () => this.#opened?.pid;
    return {
      key: this.key,
      connectionId: this.connectionId,
      get pid() {
        return pid();
      },
      startedAt,
      tools: () => this.#lists.tools,
      prompts: () => this.#lists.prompts,
      // After the connection is gone the last lines stay readable: they say why it went.
      stderrTail: () => this.#opened?.stderrTail() ?? [],
      stderrSince: (seq) =>
        this.#opened?.stderrSince?.(seq) ?? { lines: [], skipped: 0, next: seq },
      flooding: () => this.#traffic?.report(),
      serverCapabilities: () => this.#opened?.client.getServerCapabilities(),
      serverVersion: () => this.#opened?.client.getServerVersion(),
      instructions: () => this.#opened?.client.getInstructions(),
    };
  }

  activity(): ConnectionActivity {
    return {
      inFlight: this.#inFlight,
      subscriptions: this.#router.subscriptionCount(),
      lastActiveAt: this.#lastActiveAt,
    };
  }

  stats(): { readonly tools: number; readonly prompts: number } {
    return { tools: this.#lists.tools.length, prompts: this.#lists.prompts.length };
  }

  /** Pool.request for this connection (see there). */
  async request(
    message: McpMessage,
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const owner = RESERVED_METHODS.get(message.method);
    if (owner !== undefined) {
      throw new PoolError(
        `server "${this.name}": ${message.method} is not sent through request(); ${owner}`,
      );
    }
    const { caller, onprogress } = options;
    const warn = this.#deps.warn;
    const token = onprogress
      ? this.#progress.start((p) =>
          callSafely(warn, `onprogress of ${message.method}`, () => onprogress(p)),
        )
      : undefined;
    const done = caller ? this.#router.track(caller) : undefined;
    this.#inFlight += 1;
    this.#lastActiveAt = Date.now();
    try {
      return await hideCredentials(
        this.#opened,
        (this.#direct ?? this.#notConnected()).request(
          { method: message.method, params: withProgressToken(message.params, token) },
          {
            ...(options.signal ? { signal: options.signal } : {}),
            timeout: options.timeout ?? this.#config.timeout ?? DEFAULT_TOOL_CALL_TIMEOUT_MS,
          },
        ),
      );
    } finally {
      // Progress reaches the caller only while its request is pending.
      if (token !== undefined) this.#progress.end(token);
      done?.();
      this.#inFlight -= 1;
      this.#lastActiveAt = Date.now();
    }
  }

  attach(agent: PoolAgent): Attachment {
    return this.#router.attach(agent);
  }

  /** Takes over a connection the connector opened: its inbound pipeline and its events. */
  #watch(c: OpenedClient): void {
    this.#router.bind(c.client, c.scrub?.bind(c));
    const previousOnClose = c.client.onclose;
    c.client.onclose = () => {
      previousOnClose?.();
      this.#direct?.close();
      this.#goneDown('connection closed');
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
      if (fatal) this.#goneDown(error.message);
    };
    const traffic = c.traffic ?? new TrafficGuard(this.#deps.trafficLimits);
    this.#traffic = traffic;
    const direct = new DirectRequests(c.transport);
    this.#direct = direct;
    const progress = this.#progress;
    const router = this.#router;
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
      // 2. The message budget, before anyone sees a notification or request (progress
      //    included): one over the budget costs nothing more. Stdio applies it itself, before a
      //    line is even validated.
      ...(c.traffic === undefined ? [overBudget] : []),
      // 3. Progress, to the request in flight it belongs to, in the order it came.
      (message) => progress.take(message),
      // 4. The server cancelled its request 0 (the SDK does not see it: server-requests.ts).
      (message) => {
        router.watchCancel(message);
        return false;
      },
      // 5. The rest: the SDK Client.
    ];
    pipeInbound(c.transport, pipeline);
    traffic.onChange(() => this.#tell('onFlooding', (h) => h.onFlooding?.()));
    traffic.onOversized((line) => this.#tell('onOversized', (h) => h.onOversized?.(line)));
    c.onUnauthorized?.(() =>
      this.#goneDown(`the OAuth sign-in is gone (mcpctl login ${this.name})`, 'unauthorized'),
    );
    c.client.setNotificationHandler(ToolListChangedNotificationSchema, () =>
      this.#lists.changed('tools'),
    );
    c.client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
      this.#lists.changed('prompts'),
    );
  }

  /** The connection went away on its own. */
  #goneDown(reason: string, cause: LostCause = 'failed'): void {
    if (this.#stopping || this.#down !== undefined) return;
    this.#down = { reason, cause };
    // While opening, open() fails and reports it (with this reason).
    if (!this.#host.live()) return;
    this.#host.lost(this.#lostMessage(reason), cause);
  }

  #lostMessage(reason: string): string {
    const url = urlOf(this.#config);
    const hidden = this.#scrub(reason);
    return `server "${this.name}": ${url !== undefined ? scrubUrl(hidden, url) : hidden}`;
  }

  /** Each holder's `event` callback, while the pool serves the connection. */
  #tell(event: string, call: (holder: Holder) => void): void {
    if (!this.#host.live()) return;
    for (const h of this.#host.holders()) {
      callSafely(this.#deps.warn, `${event} of session ${h.sessionId}`, () => call(h));
    }
  }

  async #end(): Promise<void> {
    this.#abort.abort(new PoolError('connection closed'));
    this.#traffic?.close();
    const c = this.#opened;
    if (!c) return;
    try {
      await (c.close ? c.close() : c.client.close());
    } catch (err) {
      this.#deps.warn(`server "${this.name}": closing the connection failed: ${messageOf(err)}`);
    }
    if (c.pid !== undefined) this.#deps.recorder?.remove(c.pid);
  }

  /** The error an open() that failed in `phase` rejects with. */
  #connectFailure(phase: string, err: unknown): Error {
    const tail = this.#opened?.stderrTail() ?? [];
    const signal = this.#abort.signal;
    const reason: unknown = signal.reason;
    if (reason instanceof DiscoveryDeadline) {
      return err instanceof DiscoveryTimeoutError
        ? err
        : new DiscoveryTimeoutError(this.name, phase, reason.timeoutMs, tail);
    }
    if (err instanceof ConnectError) return err;
    if (signal.aborted) {
      return new ConnectError(this.name, phase, `connect cancelled: ${messageOf(reason)}`, tail);
    }
    if (this.#down !== undefined) {
      const down = this.#scrub(this.#down.reason);
      return new ConnectError(this.name, phase, `${down} during ${phase}`, tail, { cause: err });
    }
    const url = urlOf(this.#config);
    const raw = this.#scrub(messageOf(err));
    const text = url !== undefined ? scrubUrl(raw, url) : raw;
    return new ConnectError(this.name, phase, `${phase} failed: ${text}`, tail, { cause: err });
  }

  /** `text` with the connection's credentials hidden (OAuth tokens; see OpenedClient.scrub). */
  #scrub(text: string): string {
    return this.#opened?.scrub ? this.#opened.scrub(text) : text;
  }

  /** A live connection always has its direct requests; this says so if one ever did not. */
  #notConnected(): never {
    throw new PoolError(`server "${this.name}" is not connected`);
  }
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

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

/**
 * A failed call's message with the connection's credentials hidden: a transport error quotes
 * the server's answer, which may echo the token we sent. The error itself is kept (its class
 * and code say what happened).
 */
async function hideCredentials<T>(c: OpenedClient | undefined, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (c?.scrub && err instanceof Error) err.message = c.scrub(err.message);
    throw err;
  }
}
