/**
 * One MCP session of an HTTP agent (one `Mcp-Session-Id`): the daemon session it holds, the
 * gateway `serve` would reach for that session, and the SDK transport between them.
 *
 * The workspace comes from the URL (`session`), from the agent's roots (`roots`), or is none
 * at all (`inert`). Roots can only be asked for after `initialize` was answered, so a `roots`
 * session answers `initialize` from a gateway with nothing behind it (no server's
 * instructions: their servers are not known yet), holds every later request of the agent,
 * asks `roots/list` once the agent says `initialized` (on the GET stream, and again on the
 * stream of the agent's first held request, for a client without one), and opens the real
 * gateway on the session of the first `file://` root that is a directory (`specOf`: the
 * daemon's own session for the daemon's folder) — or, without one or without an answer
 * within ROOTS_WAIT_MS, on the daemon's workspace. That gateway is given the agent's
 * `initialize` (its answer is not sent again) and `initialized`, then the held messages in
 * order. So no request of the agent is ever served by another workspace's servers.
 *
 * Guarantees:
 * - Opening holds the daemon session (opened or joined like `gateway.open` does, in the
 *   daemon's environment) and opens its gateway with the same options as a `serve` agent's
 *   (first-list wait, in-band OAuth login, meta tools as asked: cli/agent/gateway.ts, the one
 *   place for every door). A failure leaves nothing held.
 * - An inert session holds nothing and offers nothing (the face of a serve started by mcpctl
 *   itself, cli/agent/inert-port.ts), so mcpctl is never proxied into itself over HTTP.
 * - Held messages are bounded (MAX_HELD); past it a request is answered with an error at once.
 * - `close()` (the agent's DELETE, idle expiry, the daemon stopping) and the gateway closing
 *   itself end the same way, once: the transport and its streams are closed, the replay window
 *   lets go of the session's events, the daemon session is released. `onEnd` then runs once.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Daemon, SessionHandle, SessionSpec, WorkspaceFrom } from '../../controller/daemon.js';
import { WorkspaceNotFoundError } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import type { Gateway, MetaToolsMode } from '../../gateway/index.js';
import { LIMIT_EXCEEDED_CODE } from '../../api/limits.js';
import { messageOf } from '../errors.js';
import { gatewayLog, openAgentGateway, openInertAgentGateway } from '../agent/gateway.js';
import { HttpAgentTransport } from './agent-transport.js';
import type { FastReply } from './fast-path.js';
import type { HttpLimits } from './limits.js';
import { Relay } from './relay.js';
import { ReplayStore, type ReplayWindow } from './replay.js';
import { workspaceOfRoots } from './roots.js';

/** The SDK transport's id of the GET stream (not exported by the SDK; its replay uses it). */
export const STANDALONE_STREAM = '_GET_stream';

/** How long a `roots` session waits for the agent's roots before it takes the daemon's. */
export const ROOTS_WAIT_MS = 5000;
/** Messages a `roots` session holds while it waits for them. */
const MAX_HELD = 256;
/** Ids of our own `roots/list` requests (the gateway's are numbers: they never collide). */
const ROOTS_ID_PREFIX = 'mcpctl-roots-';

/** Where an HTTP agent's workspace came from (logged, and shown by `get sessions -o wide`). */
export type WorkspaceSource = Exclude<WorkspaceFrom, 'serve'>;

/**
 * What an agent's initialize asks for: the session of a workspace it named (or the daemon's),
 * the one its roots name (`fallback` without), or nothing at all (`inert`: mcpctl's own
 * client, an entry of this endpoint in a file mcpctl watches).
 */
export type AgentSessionSpec =
  | {
      readonly kind: 'session';
      readonly session: SessionSpec;
      readonly source: 'url' | 'daemon';
      readonly metaTools: MetaToolsMode;
    }
  | {
      readonly kind: 'roots';
      readonly fallback: SessionSpec;
      /** The session of the folder the roots name (the daemon's for its own folder). */
      readonly specOf: (folder: string) => SessionSpec;
      readonly metaTools: MetaToolsMode;
    }
  | { readonly kind: 'inert'; readonly reason: string };

export interface AgentSessionDeps {
  readonly daemon: Daemon;
  readonly version: string;
  readonly limits: HttpLimits;
  readonly window: ReplayWindow;
  /** The daemon's log (never the agent's channel): problems. */
  readonly log: (message: string) => void;
  /** The daemon's log: a session has its workspace (it may come after opening: roots). */
  readonly opened: (agent: HttpAgentSession, source: WorkspaceSource | 'inert') => void;
}

interface Held {
  readonly message: JSONRPCMessage;
  readonly extra: MessageExtraInfo | undefined;
}

/** A `roots` session while it waits for the agent's roots. */
interface Deciding {
  readonly fallback: SessionSpec;
  readonly specOf: (folder: string) => SessionSpec;
  readonly metaTools: MetaToolsMode;
  readonly front: Gateway;
  readonly frontRelay: Relay;
  initialize: Held | undefined;
  initialized: Held | undefined;
  readonly held: Held[];
  readonly asked: Set<string>;
  askedOnRequest: boolean;
  timer: NodeJS.Timeout | undefined;
  decided: boolean;
}

export class HttpAgentSession {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** The MCP protocol version negotiated by the agent's `initialize`. */
  readonly protocolVersion: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly store: ReplayStore;
  /** Runs once when the session has ended, however. */
  onEnd: (() => void) | undefined;
  /** HTTP exchanges of this agent open now (requests being served, streams). */
  open = 0;
  /** Of those, GET streams (the agent's stream for the server's messages, or a resumed one). */
  streams = 0;
  /**
   * The mark on the GET stream after which nothing was sent on an open GET stream: the next
   * GET stream without Last-Event-ID resumes after it (set when a GET stream ends).
   */
  standaloneMark: string;
  lastActive = Date.now();

  readonly #deps: AgentSessionDeps;
  readonly #agent: HttpAgentTransport;
  readonly #log: (message: string) => void;
  #handle: SessionHandle<Session> | undefined;
  #gateway: Gateway | undefined;
  #relay: Relay | undefined;
  #deciding: Deciding | undefined;
  #rootsAsked = 0;
  #ending: Promise<void> | undefined;

  private constructor(id: string, protocolVersion: string, deps: AgentSessionDeps) {
    this.id = id;
    this.protocolVersion = protocolVersion;
    this.#deps = deps;
    this.#log = (message) => deps.log(`http agent ${id.slice(0, 8)}: ${message}`);
    this.store = new ReplayStore(deps.window, {
      maxStreams: deps.limits.maxStreamsPerSession * 2,
      pinned: [STANDALONE_STREAM],
      onGap: (stream, upTo) =>
        this.#log(
          `came back for stream ${stream} after events up to #${upTo} were dropped from the replay window; it gets what is left`,
        ),
    });
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: this.store,
      onsessionclosed: () => void this.close(),
    });
    this.#agent = new HttpAgentTransport(this.transport, deps.limits.maxRequestsInFlight);
    this.#agent.onmessage = (message, extra) => this.#receive(message, extra);
    this.#agent.onclose = () => void this.close();
    this.standaloneMark = this.store.mark(STANDALONE_STREAM);
  }

  /** The daemon session served (none while a `roots` session waits, nor for an inert one). */
  get session(): Session | undefined {
    return this.#handle?.session;
  }

  get ended(): boolean {
    return this.#ending !== undefined;
  }

  /**
   * No request of the agent waits for its answer (held ones included) and no exchange is open
   * but GET streams: closing it now takes nothing from the agent but its session.
   */
  get idle(): boolean {
    return this.open === this.streams && this.#agent.inFlight === 0;
  }

  /**
   * Whether a request may take the endpoint's fast path (fast-path.ts): not while the session
   * has no gateway yet (a `roots` session deciding: its held requests need the transport's
   * streams), nor after the end.
   */
  get servesFast(): boolean {
    return this.#relay !== undefined && !this.ended;
  }

  /** Serves a request of the fast path (only when `servesFast`), its answer to `reply`. */
  serveFast(message: JSONRPCRequest, extra: MessageExtraInfo, reply: FastReply): void {
    this.#agent.receiveFast(message, extra, reply);
  }

  static async open(
    spec: AgentSessionSpec,
    protocolVersion: string,
    deps: AgentSessionDeps,
  ): Promise<HttpAgentSession> {
    const self = new HttpAgentSession(randomUUID(), protocolVersion, deps);
    await self.#agent.start();
    try {
      if (spec.kind === 'inert') {
        await self.#serve(self.#inertGateway(spec.reason), undefined);
        deps.opened(self, 'inert');
      } else if (spec.kind === 'session') {
        await self.#serve(...(await self.#openGateway(spec.session, spec.metaTools, spec.source)));
        deps.opened(self, spec.source);
      } else {
        const front = self.#inertGateway(
          'the workspace of this agent is being chosen from its roots',
        );
        const frontRelay = new Relay({
          send: (message, options) => self.#agent.send(message, options),
          close: () => Promise.resolve(),
        });
        self.#deciding = {
          fallback: spec.fallback,
          specOf: spec.specOf,
          metaTools: spec.metaTools,
          front,
          frontRelay,
          initialize: undefined,
          initialized: undefined,
          held: [],
          asked: new Set(),
          askedOnRequest: false,
          timer: undefined,
          decided: false,
        };
        await front.connect(frontRelay);
      }
    } catch (err) {
      await self.close();
      throw err;
    }
    return self;
  }

  /** Ends the session (idempotent); resolves when everything it held is let go. */
  close(): Promise<void> {
    // Started after the assignment: closing re-enters here (the transport's onclose).
    this.#ending ??= Promise.resolve().then(async () => {
      const deciding = this.#deciding;
      clearTimeout(deciding?.timer);
      const gateways = [this.#gateway, deciding?.front].filter((g) => g !== undefined);
      for (const g of gateways) g.onclose = undefined;
      try {
        await Promise.all(gateways.map((g) => g.close()));
      } finally {
        // Closing the gateway closed the transport too (a no-op when already closed).
        await this.transport.close().catch(() => undefined);
        this.store.close();
        this.#handle?.release();
        this.onEnd?.();
      }
    });
    return this.#ending;
  }

  #inertGateway(reason: string): Gateway {
    const label = `http agent ${this.id.slice(0, 8)} (inert)`;
    return openInertAgentGateway(reason, {
      version: this.#deps.version,
      log: gatewayLog(label, this.#deps.log),
      label,
    });
  }

  /** Holds the daemon session of `spec` and opens its gateway; nothing held on failure. */
  async #openGateway(
    spec: SessionSpec,
    metaTools: MetaToolsMode,
    source: WorkspaceSource,
  ): Promise<[Gateway, SessionHandle<Session>]> {
    const { daemon } = this.#deps;
    const handle = await daemon.open(spec, {
      transport: 'http',
      workspaceFrom: source,
      name: `http ${this.id.slice(0, 8)}`,
    });
    const label = `http agent ${this.id.slice(0, 8)} of session ${handle.session.id}`;
    try {
      const gateway = await openAgentGateway(daemon, handle.session, {
        version: this.#deps.version,
        log: gatewayLog(label, this.#deps.log),
        metaTools,
        label,
        onInitialized: (info) => handle.identify(info ?? {}),
      });
      return [gateway, handle];
    } catch (err) {
      handle.release();
      throw err;
    }
  }

  /**
   * Serves the agent with `gateway` from now on. `replay`: what the agent already sent (a
   * `roots` session's), given to the gateway first; its answer to `initialize` is not sent.
   */
  async #serve(
    gateway: Gateway,
    handle: SessionHandle<Session> | undefined,
    replay?: Deciding,
  ): Promise<void> {
    if (this.ended) {
      await gateway.close();
      handle?.release();
      return;
    }
    this.#handle = handle;
    this.#gateway = gateway;
    const initId = replay?.initialize?.message;
    const swallow = initId && 'id' in initId ? initId.id : undefined;
    let initAnswered: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (initAnswered = resolve));
    const relay = new Relay({
      send: (message, options) => {
        if (swallow !== undefined && !('method' in message) && message.id === swallow) {
          initAnswered();
          return Promise.resolve();
        }
        return this.#agent.send(message, options);
      },
      close: () => this.#agent.close(),
    });
    gateway.onclose = () => void this.close();
    await gateway.connect(relay);
    if (replay) {
      if (replay.initialize) {
        relay.deliver(replay.initialize.message, replay.initialize.extra);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          answered,
          new Promise<void>((resolve) => (timer = setTimeout(resolve, ROOTS_WAIT_MS))),
        ]);
        clearTimeout(timer);
      }
      if (replay.initialized) relay.deliver(replay.initialized.message, replay.initialized.extra);
      // Synchronous from here on: nothing the agent sends can come between.
      for (const held of replay.held.splice(0)) relay.deliver(held.message, held.extra);
    }
    this.#relay = relay;
    this.#deciding = undefined;
  }

  #receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const d = this.#deciding;
    if (!d) {
      this.#relay?.deliver(message, extra);
      return;
    }
    if (!('method' in message)) {
      // An answer to our roots/list (any of them: the first decides), or to nobody yet.
      if (typeof message.id === 'string' && d.asked.has(message.id))
        this.#decide(d, 'result' in message ? workspaceOfRoots(message.result) : undefined);
      else if (typeof message.id === 'string' && message.id.startsWith(ROOTS_ID_PREFIX)) return;
      else this.#hold(d, message, extra);
      return;
    }
    const isRequest = 'id' in message;
    if (!d.decided && message.method === 'initialize' && isRequest && !d.initialize) {
      d.initialize = { message, extra };
      d.frontRelay.deliver(message, extra);
      return;
    }
    if (!d.decided && message.method === 'ping' && isRequest) {
      d.frontRelay.deliver(message, extra);
      return;
    }
    if (message.method === 'notifications/initialized' && !d.initialized) {
      d.initialized = { message, extra };
      this.#askRoots(d, undefined);
      return;
    }
    this.#hold(d, message, extra);
    // A client without a GET stream gets the question on this request's stream.
    if (isRequest && !d.askedOnRequest) {
      d.askedOnRequest = true;
      this.#askRoots(d, message.id);
    }
  }

  #hold(d: Deciding, message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if (d.held.length < MAX_HELD) {
      d.held.push({ message, extra });
      return;
    }
    if ('method' in message && 'id' in message)
      void this.#agent
        .send({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: LIMIT_EXCEEDED_CODE,
            message: `${MAX_HELD} messages wait for this session's workspace to be chosen; wait for their answers`,
          },
        })
        .catch(() => undefined);
  }

  #askRoots(d: Deciding, related: RequestId | undefined): void {
    if (d.decided) return;
    this.#rootsAsked += 1;
    const id = `${ROOTS_ID_PREFIX}${this.#rootsAsked}`;
    d.asked.add(id);
    this.#agent
      .send(
        { jsonrpc: '2.0', id, method: 'roots/list' },
        related === undefined ? undefined : { relatedRequestId: related },
      )
      .catch((err: unknown) => this.#log(`could not ask for its roots: ${messageOf(err)}`));
    d.timer ??= setTimeout(() => this.#decide(d, undefined), ROOTS_WAIT_MS);
  }

  #decide(d: Deciding, workspace: string | undefined): void {
    if (d.decided) return;
    d.decided = true;
    clearTimeout(d.timer);
    void this.#openDecided(d, workspace).catch((err: unknown) => {
      this.#log(`cannot serve the agent: ${messageOf(err)}`);
      void this.close();
    });
  }

  async #openDecided(d: Deciding, workspace: string | undefined): Promise<void> {
    let opened: [Gateway, SessionHandle<Session>] | undefined;
    let source: WorkspaceSource = 'daemon';
    if (workspace !== undefined)
      try {
        opened = await this.#openGateway(d.specOf(workspace), d.metaTools, 'roots');
        source = 'roots';
      } catch (err) {
        if (!(err instanceof WorkspaceNotFoundError)) throw err;
        this.#log(`its root ${workspace} is no workspace (${err.message}); using the daemon's`);
      }
    opened ??= await this.#openGateway(d.fallback, d.metaTools, 'daemon');
    await this.#serve(opened[0], opened[1], d);
    d.front.onclose = undefined;
    await d.front.close();
    if (!this.ended) this.#deps.opened(this, source);
  }
}
