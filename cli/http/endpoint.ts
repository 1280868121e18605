/**
 * The daemon's MCP Streamable HTTP endpoint (`mcpctl daemon --http [HOST:]PORT`): `/mcp`, one
 * gateway per MCP session, the same gateway a `mcpctl serve` agent reaches. Here: the order
 * of the checks and the opening of sessions; its parts are checks.ts (1 to 4),
 * session-table.ts (the table, eviction, idle expiry), initialize-spec.ts (the session an
 * initialize asks for) and exchange.ts (serving one exchange, fast path or SDK transport).
 *
 * Every request passes these checks in this order, and one that fails gets its status and
 * nothing else (no session is looked up, no body is read, nothing reaches MCP):
 * 1. `Host` names a loopback host (unless the daemon was told `--http-allow-remote`), and
 *    `Origin`, when present, is a loopback origin → else 403 (DNS rebinding, web pages).
 * 2. The path is `/mcp` → else 404.
 * 3. `Authorization: Bearer <token>` matches `~/.mcpctl/http-token` (constant time) → else 401.
 * 4. GET, POST or DELETE → else 405. Open exchanges (all sessions) within budget → else 503.
 * 5. A POST body within the one MCP message limit → else 413 (the connection is closed), and
 *    JSON → else 400.
 * 6. An `Mcp-Session-Id` the daemon knows → else 404 (after a daemon restart, or expiry: a
 *    spec-following client then initializes again). A JSON-RPC batch where the session's
 *    negotiated protocol has none (2025-06-18 and later), or one holding an `initialize` →
 *    400, -32600 (batches.ts). No session id → only an `initialize` POST, which opens a
 *    session; anything else → 400. With `maxSessions` open, the least recently active idle
 *    session (nothing in flight, nothing open but GET streams; one without a GET stream first)
 *    is closed to make room, and only when every session is busy is it 503 with Retry-After.
 *
 * Guarantees beyond the checks:
 * - An initialize from mcpctl's own client (`clientInfo.name` `mcpctl`: this endpoint as a server
 *   in a file mcpctl reads) gets a session that offers nothing, as a `serve` mcpctl started
 *   itself does: mcpctl is never proxied into itself.
 * - A session's workspace: `?workspace=/abs/dir` of the initialize request, else the first
 *   `file://` root that is a directory of an agent that declares roots (asked right after
 *   `initialize`, see agent-session.ts), else the daemon's own. The daemon's own folder, named
 *   either way, is its default session's (workspace, `--mcp-config`, `--lsp-config`), any
 *   other folder a session of its own (workspace-spec.ts); `${VAR}`s expand in the daemon's
 *   environment (`get sessions -o wide` says `daemon`). The log says which (`workspaceFrom`).
 *   `?metaTools=add|only` as serve's flag.
 * - Bounded: sessions, open exchanges (per session and all together), requests in flight per
 *   session, unread bytes per response, per session and all together (unread.ts: then the
 *   largest response of the client that reads least is dropped, a stream's events kept for
 *   replay), the replay window. A session with no request and no open stream for
 *   `idleSessionMs` is closed.
 * - Streams are resumable: events carry ids, a client coming back with `Last-Event-ID` gets the
 *   kept events it missed, once (replay.ts). What is sent on the GET stream while none is open
 *   (a server's request right after initialize, say) is kept and sent on the next GET stream
 *   the client opens; a GET stream opens with an id (for clients of protocol 2025-11-25 and
 *   later), so it is resumable from its first event.
 * - A plain request (one JSON-RPC request, no progress token, no task) on a session whose
 *   workspace is chosen is served on the fast path after every check above: straight to the
 *   session's gateway and answered as one `application/json` response (fast-path.ts); every
 *   other one goes through the SDK transport, which answers on an event stream.
 * - The token is never logged or echoed; refusals say what is wrong, never what was sent.
 * - `close()` stops listening, ends every session (their streams end) and every connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isInitializeRequest, type InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Daemon } from '../../controller/daemon.js';
import { DaemonStoppingError, WorkspaceNotFoundError } from '../../controller/daemon.js';
import { LIMIT_EXCEEDED_CODE, sizeText } from '../../api/limits.js';
import { messageOf } from '../errors.js';
import { batchRefusal, negotiatedVersion } from './batches.js';
import { endpointUrl } from './address.js';
import { HttpAgentSession } from './agent-session.js';
import {
  INVALID_REQUEST,
  PARSE_ERROR,
  SERVER_ERROR,
  SESSION_NOT_FOUND,
  methodOf,
  passesChecks,
  type CheckOptions,
  type HttpMethod,
} from './checks.js';
import { exchange } from './exchange.js';
import { initializeSpecOf } from './initialize-spec.js';
import type { HttpLimits } from './limits.js';
import { readBody, replyError } from './node-bridge.js';
import { ReplayWindow } from './replay.js';
import { HttpSessionTable } from './session-table.js';
import { tokenMatcher } from './token.js';
import { UnreadLedger, type UnreadDrop } from './unread.js';

export interface HttpEndpointLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface HttpEndpointOptions {
  readonly host: string;
  readonly port: number;
  /** `--http-allow-remote`: any `Host` header is taken (the token still is required). */
  readonly allowRemote: boolean;
  readonly token: string;
  readonly limits: HttpLimits;
  readonly daemon: Daemon;
  readonly version: string;
  readonly log: HttpEndpointLog;
}

export class HttpEndpoint {
  readonly #o: HttpEndpointOptions;
  readonly #server: Server;
  readonly #sessions: HttpSessionTable;
  readonly #window: ReplayWindow;
  /** Bytes of responses the clients have not read, per session and all together. */
  readonly #unread: UnreadLedger;
  readonly #checks: CheckOptions;
  /** Exchanges open now, all sessions (requests being served and streams). */
  #open = 0;
  #closing: Promise<void> | undefined;
  #url = '';

  private constructor(o: HttpEndpointOptions) {
    this.#o = o;
    this.#checks = { allowRemote: o.allowRemote, tokenMatches: tokenMatcher(o.token) };
    this.#sessions = new HttpSessionTable(o.limits, o.log);
    this.#window = new ReplayWindow({
      maxBytes: o.limits.maxReplayBytes,
      maxEvents: o.limits.maxReplayEvents,
    });
    this.#unread = new UnreadLedger(
      {
        perStream: o.limits.maxStreamBufferedBytes,
        perSession: o.limits.maxSessionUnreadBytes,
        total: o.limits.maxUnreadBytes,
      },
      (drop) => this.#dropped(drop),
    );
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        this.#o.log.warn({ err: messageOf(err) }, 'http: a request failed');
        if (!res.headersSent)
          replyError(res, 500, SERVER_ERROR, 'internal error; see the daemon log');
        else res.destroy();
      });
    });
    // Connections without a complete request are bounded in time; open ones in number.
    this.#server.headersTimeout = 10_000;
    this.#server.requestTimeout = 120_000;
    this.#server.maxConnections = o.limits.maxStreams + 64;
  }

  /** Listens; resolves once bound (the URL then names the port the system picked for 0). */
  static async listen(o: HttpEndpointOptions): Promise<HttpEndpoint> {
    const endpoint = new HttpEndpoint(o);
    await new Promise<void>((resolve, reject) => {
      endpoint.#server.once('error', reject);
      endpoint.#server.listen(o.port, o.host, () => {
        endpoint.#server.off('error', reject);
        resolve();
      });
    });
    const address = endpoint.#server.address();
    const port = typeof address === 'object' && address !== null ? address.port : o.port;
    endpoint.#url = endpointUrl(o.host, port);
    endpoint.#sessions.sweep();
    return endpoint;
  }

  get url(): string {
    return this.#url;
  }

  /** MCP sessions open now. */
  get sessions(): number {
    return this.#sessions.size;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
      await this.#sessions.closeAll();
      this.#server.closeAllConnections();
      await closed;
    })();
    return this.#closing;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { limits } = this.#o;
    // 1. to 4. Host and Origin, the path, the token, the method (checks.ts).
    const url = passesChecks(req, res, this.#checks);
    if (url === undefined) return;
    // 4. Room for one more exchange.
    if (this.#closing) return replyError(res, 503, SERVER_ERROR, 'the daemon is shutting down');
    if (this.#open >= limits.maxStreams)
      return this.#busy(
        res,
        `${limits.maxStreams} HTTP requests and streams are open, the daemon's limit`,
      );
    this.#open += 1;
    try {
      await this.#serve(req, res, url, methodOf(req));
    } finally {
      this.#open -= 1;
    }
  }

  async #serve(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    method: HttpMethod,
  ): Promise<void> {
    const { limits } = this.#o;
    // 5. The body.
    let parsedBody: unknown;
    if (method === 'POST') {
      const body = await readBody(req, limits.maxBodyBytes);
      if (body.kind === 'aborted') return void res.destroy();
      if (body.kind === 'tooLarge')
        return replyError(
          res,
          413,
          LIMIT_EXCEEDED_CODE,
          `the request body is ${sizeText(body.bytes)} or more, over the ${sizeText(limits.maxBodyBytes)} message limit`,
          { Connection: 'close' },
        );
      try {
        parsedBody = JSON.parse(body.text);
      } catch {
        return replyError(res, 400, PARSE_ERROR, 'Parse error: the body is not JSON');
      }
    }
    // 6. The session, and a batch only where its protocol has them.
    const sessionId = req.headers['mcp-session-id'];
    let agent = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && !agent)
      return replyError(
        res,
        404,
        SESSION_NOT_FOUND,
        'Session not found: it ended (or the daemon restarted); initialize a new one',
      );
    const batch = batchRefusal(parsedBody, agent?.protocolVersion);
    if (batch !== undefined) return replyError(res, 400, INVALID_REQUEST, batch);
    if (!agent) {
      if (method !== 'POST' || !isInitializeRequest(parsedBody))
        return replyError(
          res,
          400,
          SERVER_ERROR,
          'Bad Request: Mcp-Session-Id header is required (initialize first)',
        );
      agent = await this.#openSession(res, url, parsedBody.params);
      if (!agent) return;
    }
    if (agent.open >= limits.maxStreamsPerSession)
      return this.#busy(
        res,
        `${limits.maxStreamsPerSession} HTTP requests and streams of this session are open, the daemon's limit`,
      );
    await exchange(agent, this.#unread, req, res, url, method, parsedBody);
    // An initialize the transport refused (a bad one) leaves a session nobody can use.
    if (typeof sessionId !== 'string' && res.statusCode !== 200) await agent.close();
  }

  async #openSession(
    res: ServerResponse,
    url: URL,
    init: InitializeRequest['params'],
  ): Promise<HttpAgentSession | undefined> {
    const { limits, daemon } = this.#o;
    // The request is judged before anyone gives way: a refused one must evict no session.
    const spec = initializeSpecOf(daemon, url, init);
    if (typeof spec === 'string') {
      replyError(res, 400, SERVER_ERROR, spec);
      return undefined;
    }
    const evicted = this.#sessions.makeRoom();
    if (evicted === 'busy') {
      this.#busy(
        res,
        `all ${limits.maxSessions} MCP sessions the daemon holds (its limit) are busy, each with a request in flight or a stream open; try again in a moment`,
      );
      return undefined;
    }
    this.#sessions.opening();
    let agent: HttpAgentSession;
    try {
      await evicted?.close();
      agent = await HttpAgentSession.open(spec, negotiatedVersion(init.protocolVersion), {
        daemon,
        version: this.#o.version,
        limits,
        window: this.#window,
        log: (message) => this.#o.log.warn({}, message),
        opened: (opened, source) =>
          this.#o.log.info(
            {
              session: opened.session?.id ?? null,
              http: opened.id.slice(0, 8),
              ...(spec.kind === 'inert'
                ? { inert: spec.reason }
                : { workspace: opened.session?.workspace, workspaceFrom: source }),
            },
            'http agent session opened',
          ),
      });
    } catch (err) {
      if (err instanceof WorkspaceNotFoundError) {
        replyError(
          res,
          400,
          SERVER_ERROR,
          `${err.message}; pass an existing directory as ?workspace=`,
        );
        return undefined;
      }
      if (err instanceof DaemonStoppingError) {
        replyError(res, 503, SERVER_ERROR, err.message);
        return undefined;
      }
      throw err;
    } finally {
      this.#sessions.opened();
    }
    if (this.#closing) {
      await agent.close();
      replyError(res, 503, SERVER_ERROR, 'the daemon is shutting down');
      return undefined;
    }
    this.#sessions.add(agent);
    return agent;
  }

  /** The log's word on a response dropped for what its client left unread. */
  #dropped(drop: UnreadDrop): void {
    const { limits } = this.#o;
    const who = `http agent ${drop.owner.slice(0, 8)}`;
    const kept = "(a stream's events stay for a resume)";
    const msg =
      drop.scope === 'stream'
        ? `${who} left more than ${sizeText(limits.maxStreamBufferedBytes)} of one answer or stream unread; it is dropped ${kept}`
        : drop.scope === 'session'
          ? `${who} left ${sizeText(drop.ownerBytes + drop.bytes)} unread over its answers and streams, more than the ${sizeText(limits.maxSessionUnreadBytes)} one session may; its largest (${sizeText(drop.bytes)}) is dropped ${kept}`
          : `HTTP agents left ${sizeText(drop.totalBytes + drop.bytes)} unread together, more than the daemon's ${sizeText(limits.maxUnreadBytes)}; the largest answer or stream (${sizeText(drop.bytes)}) of ${who}, which holds the most, is dropped ${kept}`;
    this.#o.log.warn(
      {
        session: this.#sessions.get(drop.owner)?.session?.id ?? null,
        http: drop.owner.slice(0, 8),
        unread: { dropped: drop.bytes, session: drop.ownerBytes, all: drop.totalBytes },
      },
      msg,
    );
  }

  #busy(res: ServerResponse, why: string): void {
    replyError(res, 503, LIMIT_EXCEEDED_CODE, why, { 'Retry-After': '1' });
  }
}
