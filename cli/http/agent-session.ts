/**
 * One MCP session of an HTTP agent (one `Mcp-Session-Id`): the daemon session it holds, the
 * gateway `serve` would reach for that session, and the SDK transport between them.
 *
 * Guarantees:
 * - Opening holds the daemon session (opened or joined like `gateway.open` does, in the
 *   daemon's environment) and opens its gateway with the same options as a `serve` agent's
 *   (first-list wait, in-band OAuth login, meta tools as asked). A failure leaves nothing held.
 *   An inert session holds nothing and offers nothing (the face of a serve started by mcpctl
 *   itself, cli/serve/inert-port.ts), so mcpctl is never proxied into itself over HTTP.
 * - `close()` (the agent's DELETE, idle expiry, the daemon stopping) and the gateway closing
 *   itself end the same way, once: the transport and its streams are closed, the replay window
 *   lets go of the session's events, the daemon session is released. `onEnd` then runs once.
 * - `busy`/`lastActive` say whether a request or stream of the agent is open, for idle expiry.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Daemon, SessionHandle, SessionSpec } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import {
  openGateway,
  openInertGateway,
  type Gateway,
  type MetaToolsMode,
} from '../../gateway/index.js';
import { errorText } from '../errors.js';
import { inbandLogin } from '../inband-login.js';
import { FIRST_LIST_WAIT_MS } from '../methods/gateway.js';
import { InertSessionPort } from '../serve/inert-port.js';
import { HttpAgentTransport } from './agent-transport.js';
import type { HttpLimits } from './limits.js';
import { ReplayStore, type ReplayWindow } from './replay.js';

/** The SDK transport's id of the GET stream (not exported by the SDK; its replay uses it). */
export const STANDALONE_STREAM = '_GET_stream';

/** Where an HTTP agent's workspace came from (logged, and said by the README). */
export type WorkspaceSource = 'url' | 'daemon';

/**
 * What an agent's initialize asks for: a daemon session (`serve`'s gateway), or nothing at all
 * (`inert`: mcpctl's own client, an entry of this endpoint in a file mcpctl watches).
 */
export type AgentSessionSpec =
  | {
      readonly kind: 'session';
      readonly session: SessionSpec;
      readonly source: WorkspaceSource;
      readonly metaTools: MetaToolsMode;
    }
  | { readonly kind: 'inert'; readonly reason: string };

export interface AgentSessionDeps {
  readonly daemon: Daemon;
  readonly version: string;
  readonly limits: HttpLimits;
  readonly window: ReplayWindow;
  /** The daemon's log (never the agent's channel). */
  readonly log: (message: string) => void;
}

export class HttpAgentSession {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly store: ReplayStore;
  /** The daemon session it holds (none for an inert one). */
  readonly session: Session | undefined;
  /** Runs once when the session has ended, however. */
  onEnd: (() => void) | undefined;
  /** HTTP exchanges of this agent open now (requests being served, streams). */
  open = 0;
  /**
   * The mark on the GET stream after which nothing was sent on an open GET stream: the next
   * GET stream without Last-Event-ID resumes after it (set when a GET stream ends).
   */
  standaloneMark: string;
  lastActive = Date.now();

  readonly #handle: SessionHandle<Session> | undefined;
  readonly #gateway: Gateway;
  #ending: Promise<void> | undefined;

  private constructor(
    id: string,
    handle: SessionHandle<Session> | undefined,
    gateway: Gateway,
    transport: WebStandardStreamableHTTPServerTransport,
    store: ReplayStore,
  ) {
    this.id = id;
    this.#handle = handle;
    this.session = handle?.session;
    this.#gateway = gateway;
    this.transport = transport;
    this.store = store;
    this.standaloneMark = store.mark(STANDALONE_STREAM);
  }

  /** For logs: `session NAME`, or `no session` for an inert one. */
  get sessionLabel(): string {
    return this.session ? `session ${this.session.id}` : 'no session (inert)';
  }

  static async open(spec: AgentSessionSpec, deps: AgentSessionDeps): Promise<HttpAgentSession> {
    const id = randomUUID();
    const short = id.slice(0, 8);
    let handle: SessionHandle<Session> | undefined;
    let gateway: Gateway;
    let log: (message: string) => void;
    if (spec.kind === 'inert') {
      const label = `http agent ${short} (inert)`;
      log = (message) => deps.log(`gateway of ${label}: ${message}`);
      gateway = openInertGateway(new InertSessionPort(spec.reason), {
        version: deps.version,
        log,
        metaTools: 'off',
        label,
      });
    } else {
      const opened = await deps.daemon.open(spec.session);
      handle = opened;
      const label = `http agent ${short} of session ${opened.session.id}`;
      log = (message) => deps.log(`gateway of ${label}: ${message}`);
      try {
        gateway = await openGateway(opened.session, {
          version: deps.version,
          log,
          firstListWaitMs: FIRST_LIST_WAIT_MS,
          metaTools: spec.metaTools,
          label,
          login: inbandLogin(deps.daemon, opened.session),
        });
      } catch (err) {
        opened.release();
        throw err;
      }
    }
    const store = new ReplayStore(deps.window, {
      maxStreams: deps.limits.maxStreamsPerSession * 2,
      pinned: [STANDALONE_STREAM],
      onGap: (stream, upTo) =>
        log(
          `the agent came back for stream ${stream} after events up to #${upTo} were dropped from the replay window; it gets what is left`,
        ),
    });
    // The transport is made before the session object it reports a DELETE to.
    const ref: { agent?: HttpAgentSession } = {};
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: store,
      onsessionclosed: () => void ref.agent?.close(),
    });
    const self = new HttpAgentSession(id, handle, gateway, transport, store);
    ref.agent = self;
    gateway.onclose = () => void self.close();
    try {
      await gateway.connect(new HttpAgentTransport(transport, deps.limits.maxRequestsInFlight));
    } catch (err) {
      log(`cannot serve the agent: ${errorText(err)}`);
      await self.close();
      throw err;
    }
    return self;
  }

  /** Ends the session (idempotent); resolves when everything it held is let go. */
  close(): Promise<void> {
    this.#ending ??= (async () => {
      this.#gateway.onclose = undefined;
      try {
        await this.#gateway.close();
      } finally {
        // The gateway closed its server, and so the transport (a no-op when already closed).
        await this.transport.close().catch(() => undefined);
        this.store.close();
        this.#handle?.release();
        this.onEnd?.();
      }
    })();
    return this.#ending;
  }

  get ended(): boolean {
    return this.#ending !== undefined;
  }
}
