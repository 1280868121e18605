/**
 * The agents behind one pooled connection, as its server sees them: who answers the server's
 * own requests (sampling, elicitation, roots) and who hears its notifications. One AgentRouter
 * per connection (connection.ts); several agents (of different sessions, even workspaces) may
 * share it.
 *
 * Why one file of ~680 lines: who is asked, the roots, who hears a notification, and the
 * refcounted subscriptions and log level all read one state (the attachments, the calls in
 * flight, the holders' workspaces) and end with one close(); the routing rules are the boundary
 * between agents (issue #22, M3) and are best read beside the state they rely on.
 *
 * Guarantees:
 * - `install(client)` (before connect) declares `sampling`, `elicitation` (form and url) and
 *   `roots` (listChanged) to the server, and installs handlers for `sampling/createMessage`,
 *   `elicitation/create`, `roots/list` and every notification the pool does not handle itself.
 *   Until agents attach, the server's requests are answered too: roots `[]`, the others an error.
 * - `sampling/createMessage` and `elicitation/create` (issue #22, M3): never guessed. A request
 *   goes to the agent it belongs to when that is knowable, else to nobody, and never from one
 *   workspace (the `workspace` of a session, see AgentPeer) to another:
 *   1. it names a task (`_meta["io.modelcontextprotocol/related-task"].taskId`) → the attached
 *      agent that created that task (`ownsTask`); nobody, or several, claim it → refused;
 *   2. else calls of exactly one agent are in flight on this connection (`track`) → that agent;
 *   3. calls of several agents are in flight → refused, also when they are all of one
 *      workspace: the answer would be put into a call it may not belong to (the same person
 *      may not be behind both), so it is refused with why and can be asked again later;
 *   4. no call in flight → the attached agents that can answer, asked at once, the first
 *      answer wins (the others' requests are aborted), provided the connection is used by
 *      sessions of one workspace only (holders and attached agents); of several → refused.
 *   The chosen agent must `canAnswer`, else the request is refused too: it never falls back
 *   to another agent. Refused: the server gets an McpError (InvalidRequest) naming the server,
 *   the method and why. The server's cancellation, and the connection's end, abort the
 *   forwarded request. No other signal is used: over stdio the SDK's `relatedRequestId` never
 *   reaches the wire, and a `progressToken` in the request is the server's own token for it.
 * - `roots/list` is answered here: the union of the attached agents' roots, deduplicated by
 *   uri, in attach order, when the connection is used by sessions of one workspace; `[]` with
 *   no agent, and `[]` while sessions of several workspaces hold it (a stdio server with an
 *   absolute `cwd`, a remote server): one workspace's roots given to a server that serves
 *   another workspace's calls would let those calls reach into it. When attach, detach,
 *   `hold`/`unhold` or `rootsChanged()` change the answer, the server hears
 *   `notifications/roots/list_changed` (and only then).
 * - Notifications: `notifications/resources/updated` reaches only the agents subscribed to its
 *   `uri` on this connection; any other (logging messages, resources/list_changed, unknown ones)
 *   reaches every attached agent. Each agent hears a notification once, however often attached.
 * - Subscriptions are refcounted per uri: the server gets one `resources/subscribe` for the
 *   first agent and `resources/unsubscribe` when the last one lets go (unsubscribe or detach).
 *   Changes to one uri are sent one at a time, in order.
 * - Logging: the server gets `logging/setLevel` with the most verbose level any attached agent
 *   asked for, only when that level changes (detach included); when no agent wants a level any
 *   more, the server keeps the last one. A server that declares no `logging` is never sent it.
 * - An agent's callback that throws (notify, canAnswer, roots) is reported through `warn` and
 *   costs nothing to the other agents or the connection.
 * - `close()` (the connection ended) ends every attachment silently: forwarded requests are
 *   aborted, later `detach`/`rootsChanged`/`unsubscribe` do nothing, `subscribe`/`setLogLevel`
 *   reject with a PoolError, and `attach` throws one.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ErrorCode,
  RELATED_TASK_META_KEY,
  type ClientCapabilities,
  type JSONRPCMessage,
  LoggingLevelSchema,
  type LoggingLevel,
  type RequestId,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { messageOf, PoolError, RpcError } from './errors.js';
import type { AgentCaller, AgentPeer, Attachment, McpMessage } from './types.js';

/** What the pool's client declares to every server: it can relay all of these to agents. */
export const POOL_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  // Form mode only: most agents declare no more, and a server that saw url mode would offer
  // what (as far as it can tell) nobody behind mcpctl can answer.
  elicitation: {},
  roots: { listChanged: true },
};

/** Most verbose first: the order the spec (RFC 5424) gives, as the SDK's schema lists it. */
const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

/**
 * A server→client request as it came, params untouched (the SDK's own request schemas would
 * drop fields it does not know; the SDK still validates the request and the answer itself).
 */
function forwarded<M extends string>(method: M) {
  return z
    .object({ method: z.literal(method), params: z.record(z.unknown()).optional() })
    .passthrough();
}

const SamplingRequest = forwarded('sampling/createMessage');
const ElicitationRequest = forwarded('elicitation/create');
const RootsRequest = forwarded('roots/list');

/** What a result from the server may be: any object, kept as it is (no copy, nothing dropped). */
export const PassthroughResult = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  { message: 'the server answered with something that is not a JSON object' },
);

export interface AgentRouterOptions {
  /** The pool key, passed to `AgentPeer.notify`. */
  readonly key: string;
  /** The server's name in the config, for errors. */
  readonly server: string;
  /** Problems that fail nothing (an agent's callback threw, an unsubscribe failed). */
  readonly warn: (message: string) => void;
}

interface AttachmentState {
  readonly peer: AgentPeer;
  readonly uris: Set<string>;
  level?: LoggingLevel;
  ended: boolean;
}

interface UriState {
  readonly holders: Set<AttachmentState>;
  /** Whether the server is subscribed (as far as its answers told us). */
  onServer: boolean;
  /** The last change sent for this uri; the next one waits for it. */
  chain: Promise<void>;
}

interface InFlight {
  readonly peer: AgentCaller;
}

export class AgentRouter {
  readonly #key: string;
  readonly #server: string;
  readonly #warn: (message: string) => void;
  #client: Client | undefined;
  /** Whether our handlers and capabilities are on the client (install before connect). */
  #installed = false;
  #scrub: ((text: string) => string) | undefined;
  readonly #attached: AttachmentState[] = [];
  readonly #inFlight: InFlight[] = [];
  /** The workspace of each session holding the connection (`hold`), by session id. */
  readonly #holders = new Map<string, string>();
  readonly #uris = new Map<string, UriState>();
  #rootsKey = '[]';
  /** Aborts the forwarded request the server sent with id 0 (see watchCancel). */
  #cancelZero: AbortController | undefined;
  /** The level the server was last told (successfully). */
  #levelOnServer: LoggingLevel | undefined;
  #levelChain: Promise<void> = Promise.resolve();
  readonly #closed = new AbortController();

  constructor(options: AgentRouterOptions) {
    this.#key = options.key;
    this.#server = options.server;
    this.#warn = options.warn;
  }

  /** Declares our capabilities and installs the handlers; call before `client.connect`. */
  install(client: Client): void {
    client.registerCapabilities(POOL_CLIENT_CAPABILITIES);
    client.setRequestHandler(SamplingRequest, (request, extra) =>
      this.#answer(request, extra.requestId, extra.signal),
    );
    client.setRequestHandler(ElicitationRequest, (request, extra) =>
      this.#answer(request, extra.requestId, extra.signal),
    );
    client.setRequestHandler(RootsRequest, () => ({ roots: this.roots() }));
    this.#client = client;
    this.#installed = true;
    this.#listen(client);
  }

  /**
   * The connection is live: from now on the router may talk to its server. A client the
   * connector did not `install` on (a foreign connector) still relays notifications.
   */
  bind(client: Client, scrub?: (text: string) => string): void {
    this.#scrub = scrub;
    if (this.#client === client) return;
    this.#client = client;
    this.#installed = false;
    this.#listen(client);
  }

  /**
   * A message from the server, before the SDK Client sees it (a step of the connection's
   * inbound pipeline, connection.ts). The SDK (1.32) ignores `notifications/cancelled` for
   * request id 0 (a truthiness test, typescript-sdk#2283), and 0 is the id of the first request
   * a server sends: often the very sampling or elicitation request an agent is then left
   * answering. We watch for it ourselves.
   */
  watchCancel(message: JSONRPCMessage): void {
    if (
      'method' in message &&
      message.method === 'notifications/cancelled' &&
      !('id' in message) &&
      message.params?.['requestId'] === 0
    ) {
      this.#cancelZero?.abort(new PoolError(`server "${this.#server}" cancelled its request`));
    }
  }

  /**
   * The session `sessionId`, of `workspace`, holds the connection (from the ticket it was
   * acquired with): it counts for "the connection's workspaces" even before any of its agents
   * attached, so a server shared with it is at once offered no other workspace's roots.
   */
  hold(sessionId: string, workspace: string): void {
    if (this.#holders.get(sessionId) === workspace) return;
    this.#holders.set(sessionId, workspace);
    this.#rootsMaybeChanged();
  }

  /** The session let go of the connection. */
  unhold(sessionId: string): void {
    if (this.#holders.delete(sessionId)) this.#rootsMaybeChanged();
  }

  /** Marks a request made for `peer` as in flight until the returned function is called. */
  track(peer: AgentCaller): () => void {
    const item: InFlight = { peer };
    this.#inFlight.push(item);
    return () => {
      const i = this.#inFlight.indexOf(item);
      if (i >= 0) this.#inFlight.splice(i, 1);
    };
  }

  attach(peer: AgentPeer): Attachment {
    if (this.#closed.signal.aborted) {
      throw new PoolError(`server "${this.#server}": the connection has ended`);
    }
    const state: AttachmentState = { peer, uris: new Set(), ended: false };
    this.#attached.push(state);
    this.#rootsMaybeChanged();
    return {
      rootsChanged: () => {
        if (!state.ended) this.#rootsMaybeChanged();
      },
      subscribe: (uri) => this.#subscribe(state, uri),
      unsubscribe: (uri) => this.#unsubscribe(state, uri),
      setLogLevel: (level) => this.#setLogLevel(state, level),
      detach: () => this.#detach(state),
    };
  }

  /**
   * The union of the attached agents' roots (deduplicated by uri, attach order); none while
   * sessions of several workspaces use the connection (see the guarantees above).
   */
  roots(): Root[] {
    if (this.#workspaces().size > 1) return [];
    const seen = new Set<string>();
    const out: Root[] = [];
    for (const peer of this.#peers()) {
      let roots: readonly Root[] = [];
      try {
        roots = peer.roots();
      } catch (err) {
        this.#warn(`roots() of ${peer.label} threw: ${messageOf(err)}`);
      }
      for (const root of roots) {
        if (seen.has(root.uri)) continue;
        seen.add(root.uri);
        out.push(root);
      }
    }
    return out;
  }

  /** The connection ended: every attachment ends silently, forwarded requests are aborted. */
  close(): void {
    if (this.#closed.signal.aborted) return;
    this.#closed.abort(new PoolError(`server "${this.#server}": the connection has ended`));
    for (const state of this.#attached) state.ended = true;
    this.#attached.length = 0;
    this.#inFlight.length = 0;
    this.#holders.clear();
    this.#uris.clear();
  }

  #listen(client: Client): void {
    client.fallbackNotificationHandler = (notification) => {
      this.#deliver({
        method: notification.method,
        ...(notification.params !== undefined ? { params: notification.params } : {}),
      });
      return Promise.resolve();
    };
  }

  /** Each attached agent once, in attach order. */
  #peers(states: Iterable<AttachmentState> = this.#attached): AgentPeer[] {
    const peers = new Set<AgentPeer>();
    for (const s of states) if (!s.ended) peers.add(s.peer);
    return [...peers];
  }

  #deliver(message: McpMessage): void {
    let recipients: AgentPeer[];
    if (message.method === 'notifications/resources/updated') {
      const uri = message.params?.['uri'];
      const state = typeof uri === 'string' ? this.#uris.get(uri) : undefined;
      recipients = state ? this.#peers(state.holders) : [];
    } else {
      recipients = this.#peers();
    }
    for (const peer of recipients) {
      try {
        peer.notify(this.#key, message);
      } catch (err) {
        this.#warn(`notify of ${peer.label} (${message.method}) threw: ${messageOf(err)}`);
      }
    }
  }

  /** The workspaces of the sessions using the connection: holders, attached agents, callers. */
  #workspaces(): Set<string> {
    const out = new Set(this.#holders.values());
    for (const peer of this.#peers()) out.add(peer.workspace);
    for (const f of this.#inFlight) out.add(f.peer.workspace);
    return out;
  }

  #ownsTask(peer: AgentPeer, taskId: string): boolean {
    try {
      return peer.ownsTask(taskId);
    } catch (err) {
      this.#warn(`ownsTask of ${peer.label} threw: ${messageOf(err)}`);
      return false;
    }
  }

  #canAnswer(peer: AgentCaller, message: McpMessage): boolean {
    try {
      return peer.canAnswer(message);
    } catch (err) {
      this.#warn(`canAnswer of ${peer.label} threw: ${messageOf(err)}`);
      return false;
    }
  }

  /** A sampling or elicitation request of the server: to its agent (#recipients), or refused. */
  async #answer(
    request: { method: string; params?: Record<string, unknown> },
    requestId: RequestId,
    serverSignal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (requestId !== 0) return this.#route(request, [serverSignal, this.#closed.signal]);
    const zero = new AbortController();
    this.#cancelZero = zero;
    try {
      return await this.#route(request, [serverSignal, this.#closed.signal, zero.signal]);
    } finally {
      if (this.#cancelZero === zero) this.#cancelZero = undefined;
    }
  }

  async #route(
    request: { method: string; params?: Record<string, unknown> },
    sources: readonly AbortSignal[],
  ): Promise<Record<string, unknown>> {
    const message: McpMessage = {
      method: request.method,
      ...(request.params !== undefined ? { params: request.params } : {}),
    };
    const recipients = this.#recipients(message);
    const [only] = recipients;
    if (only !== undefined && recipients.length === 1)
      return linked(sources, (signal) => ask(only, message, signal));
    return linked(sources, (signal) => race(recipients, message, signal));
  }

  /** Who is asked (rules 1-4 of the guarantees); throws the RpcError the server gets. */
  #recipients(message: McpMessage): readonly AgentCaller[] {
    const taskId = relatedTaskOf(message);
    if (taskId !== undefined) {
      const owners = this.#peers().filter((p) => this.#ownsTask(p, taskId));
      const [owner] = owners;
      if (owner === undefined || owners.length > 1) {
        const who = owners.length > 1 ? `${owners.length} agents claim` : 'no agent';
        throw this.#refused(
          message,
          `it names task ${JSON.stringify(taskId)}, which ${who} using this connection created`,
        );
      }
      return this.#onlyIfAble(owner, message, `that created task ${JSON.stringify(taskId)}`);
    }
    const callers = [...new Set(this.#inFlight.map((f) => f.peer))];
    const [caller] = callers;
    if (caller !== undefined && callers.length === 1)
      return this.#onlyIfAble(caller, message, 'whose call is in flight');
    if (callers.length > 1) {
      const spaces = new Set(callers.map((c) => c.workspace)).size;
      throw this.#refused(
        message,
        `calls of ${callers.length} agents${spaces > 1 ? ` of ${spaces} workspaces` : ''} are in flight on its connection and the request does not say which it belongs to; it is not guessed (an answer must not reach another agent's call). Ask again while only one agent's call is in flight, or name the task in _meta "${RELATED_TASK_META_KEY}"`,
      );
    }
    const spaces = this.#workspaces().size;
    if (spaces > 1) {
      throw this.#refused(
        message,
        `no agent's call is in flight on its connection, and sessions of ${spaces} workspaces use it: a request no call caused is not shown to agents across workspaces`,
      );
    }
    const able = this.#peers().filter((p) => this.#canAnswer(p, message));
    if (able.length === 0) throw this.#nobody(message);
    return able;
  }

  /** `[peer]` when it can answer; else the request goes to nobody (never to another agent). */
  #onlyIfAble(peer: AgentCaller, message: McpMessage, which: string): readonly AgentCaller[] {
    if (this.#canAnswer(peer, message)) return [peer];
    throw this.#cannot(
      message,
      `the agent ${which} (${peer.label}) did not declare ${needOf(message)}`,
    );
  }

  #refused(message: McpMessage, why: string): RpcError {
    return new RpcError(
      ErrorCode.InvalidRequest,
      `mcpctl did not pass on ${message.method} of server "${this.#server}": ${why}`,
    );
  }

  #cannot(message: McpMessage, why: string): RpcError {
    return new RpcError(
      ErrorCode.InvalidRequest,
      `no agent connected through mcpctl can answer ${message.method} for server "${this.#server}": ${why}`,
    );
  }

  #nobody(message: McpMessage): RpcError {
    const asked = this.#peers();
    const why =
      asked.length === 0
        ? 'no agent is using it now'
        : `none of its ${asked.length === 1 ? 'agent' : `${asked.length} agents`} declared ${needOf(message)}`;
    return this.#cannot(message, why);
  }

  #rootsMaybeChanged(): void {
    const key = JSON.stringify(this.roots());
    if (key === this.#rootsKey) return;
    this.#rootsKey = key;
    const client = this.#client;
    // Only a client that declared roots.listChanged may say so (the SDK enforces it too).
    if (!client || !this.#installed || this.#closed.signal.aborted) return;
    client.notification({ method: 'notifications/roots/list_changed' }).catch((err: unknown) => {
      // A dead connection is reported by the pool; nothing else can fail here.
      if (!this.#closed.signal.aborted)
        this.#warn(`server "${this.#server}": roots/list_changed not sent: ${messageOf(err)}`);
    });
  }

  #liveClient(what: string): Client {
    const client = this.#client;
    if (!client || this.#closed.signal.aborted) {
      throw new PoolError(`server "${this.#server}": the connection has ended (${what})`);
    }
    return client;
  }

  /** A request of ours to the server; its errors with credentials hidden. */
  async #send(client: Client, method: string, params: Record<string, unknown>): Promise<void> {
    try {
      await client.request({ method, params }, PassthroughResult);
    } catch (err) {
      if (this.#closed.signal.aborted) {
        throw new PoolError(`server "${this.#server}": the connection has ended (${method})`);
      }
      if (this.#scrub && err instanceof Error) err.message = this.#scrub(err.message);
      throw err;
    }
  }

  async #subscribe(state: AttachmentState, uri: string): Promise<void> {
    if (state.ended) {
      throw new PoolError(
        `server "${this.#server}": ${state.peer.label} is no longer attached (resources/subscribe)`,
      );
    }
    const client = this.#liveClient('resources/subscribe');
    if (!client.getServerCapabilities()?.resources?.subscribe) {
      throw new RpcError(
        ErrorCode.MethodNotFound,
        `server "${this.#server}" does not support resource subscriptions (resources/subscribe)`,
      );
    }
    if (state.uris.has(uri)) return;
    const u = this.#uriState(uri);
    state.uris.add(uri);
    u.holders.add(state);
    try {
      await this.#syncUri(uri, u);
    } catch (err) {
      state.uris.delete(uri);
      u.holders.delete(state);
      throw err;
    }
  }

  async #unsubscribe(state: AttachmentState, uri: string): Promise<void> {
    if (state.ended || !state.uris.delete(uri)) return;
    const u = this.#uris.get(uri);
    if (!u) return;
    u.holders.delete(state);
    await this.#syncUri(uri, u).catch((err: unknown) => {
      // The agent is unsubscribed either way: it hears no more updates of this uri.
      this.#warn(`server "${this.#server}": resources/unsubscribe ${uri}: ${messageOf(err)}`);
    });
  }

  #uriState(uri: string): UriState {
    let u = this.#uris.get(uri);
    if (!u) {
      u = { holders: new Set(), onServer: false, chain: Promise.resolve() };
      this.#uris.set(uri, u);
    }
    return u;
  }

  /** Brings the server's subscription to `uri` in line with its holders, after earlier changes. */
  #syncUri(uri: string, u: UriState): Promise<void> {
    const next = u.chain.then(async () => {
      if (this.#closed.signal.aborted) {
        throw new PoolError(`server "${this.#server}": the connection has ended`);
      }
      const want = u.holders.size > 0;
      if (want === u.onServer) return;
      const client = this.#liveClient(want ? 'resources/subscribe' : 'resources/unsubscribe');
      await this.#send(client, want ? 'resources/subscribe' : 'resources/unsubscribe', { uri });
      u.onServer = want;
      if (!want && u.holders.size === 0 && this.#uris.get(uri) === u) this.#uris.delete(uri);
    });
    u.chain = next.catch(() => undefined);
    return next;
  }

  async #setLogLevel(state: AttachmentState, level: LoggingLevel): Promise<void> {
    if (state.ended) {
      throw new PoolError(
        `server "${this.#server}": ${state.peer.label} is no longer attached (logging/setLevel)`,
      );
    }
    this.#liveClient('logging/setLevel');
    const before = state.level;
    state.level = level;
    try {
      await this.#syncLevel();
    } catch (err) {
      if (!state.ended) state.level = before;
      throw err;
    }
  }

  /** Tells the server the most verbose level wanted, when it differs from what it was told. */
  #syncLevel(): Promise<void> {
    const next = this.#levelChain.then(async () => {
      if (this.#closed.signal.aborted) {
        throw new PoolError(`server "${this.#server}": the connection has ended`);
      }
      const want = mostVerbose(this.#attached);
      if (want === undefined || want === this.#levelOnServer) return;
      const client = this.#liveClient('logging/setLevel');
      if (!client.getServerCapabilities()?.logging) return;
      await this.#send(client, 'logging/setLevel', { level: want });
      this.#levelOnServer = want;
    });
    this.#levelChain = next.catch(() => undefined);
    return next;
  }

  #detach(state: AttachmentState): void {
    if (state.ended) return;
    state.ended = true;
    const i = this.#attached.indexOf(state);
    if (i >= 0) this.#attached.splice(i, 1);
    for (const uri of state.uris) {
      const u = this.#uris.get(uri);
      if (!u) continue;
      u.holders.delete(state);
      this.#syncUri(uri, u).catch((err: unknown) => {
        if (!this.#closed.signal.aborted)
          this.#warn(`server "${this.#server}": resources/unsubscribe ${uri}: ${messageOf(err)}`);
      });
    }
    state.uris.clear();
    if (state.level !== undefined) {
      this.#syncLevel().catch((err: unknown) => {
        if (!this.#closed.signal.aborted)
          this.#warn(`server "${this.#server}": logging/setLevel: ${messageOf(err)}`);
      });
    }
    this.#rootsMaybeChanged();
  }
}

function mostVerbose(states: readonly AttachmentState[]): LoggingLevel | undefined {
  let best: number | undefined;
  for (const s of states) {
    if (s.ended || s.level === undefined) continue;
    const rank = LOG_LEVELS.indexOf(s.level);
    if (rank >= 0 && (best === undefined || rank < best)) best = rank;
  }
  return best === undefined ? undefined : LOG_LEVELS[best];
}

/** The task a server's request says it is about (`_meta` related-task), if any. */
function relatedTaskOf(message: McpMessage): string | undefined {
  const meta = message.params?.['_meta'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const related = (meta as Record<string, unknown>)[RELATED_TASK_META_KEY];
  if (typeof related !== 'object' || related === null) return undefined;
  const taskId = (related as { taskId?: unknown }).taskId;
  return typeof taskId === 'string' ? taskId : undefined;
}

/** What an agent must have declared to answer `message`, in words for an error. */
function needOf(message: McpMessage): string {
  if (message.method === 'sampling/createMessage') return 'sampling';
  if (message.method === 'elicitation/create') {
    return message.params?.['mode'] === 'url' ? 'elicitation in url mode' : 'elicitation';
  }
  return message.method;
}

/** One agent's answer; a callback that throws at once rejects like one that fails later. */
async function ask(
  peer: AgentCaller,
  message: McpMessage,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  signal.throwIfAborted();
  return peer.request(message, { signal });
}

/**
 * Runs `work` with a signal that aborts when any of `sources` does while `work` is pending,
 * never after: an agent whose request already ended must not hear a cancellation for it.
 */
async function linked<T>(
  sources: readonly AbortSignal[],
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const listeners = sources.map((source) => {
    const onAbort = (): void => controller.abort(source.reason);
    if (source.aborted) onAbort();
    else source.addEventListener('abort', onAbort, { once: true });
    return () => source.removeEventListener('abort', onAbort);
  });
  try {
    return await work(controller.signal);
  } finally {
    for (const remove of listeners) remove();
  }
}

/** Asks every peer at once: the first answer wins and the ones still asking are aborted. */
async function race(
  peers: readonly AgentCaller[],
  message: McpMessage,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const losers = new AbortController();
  try {
    return await Promise.any(
      peers.map((peer) => linked([signal, losers.signal], (own) => ask(peer, message, own))),
    );
  } catch (err) {
    // Everyone failed: the server hears the first agent's error.
    throw err instanceof AggregateError ? (err.errors[0] as unknown) : err;
  } finally {
    losers.abort(new Error('another agent answered first'));
  }
}
