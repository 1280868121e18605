/**
 * The daemon's side of the socket: a JSON-RPC 2.0 server over newline-delimited JSON on a
 * Unix socket, with a method table that is a plain object (add a method = add an entry).
 *
 * Guarantees:
 * - The socket is created with mode 0600 (umask during bind, chmod after), so no other user
 *   can connect even for an instant; `close()` removes it only if it is still ours (same
 *   device and inode), never a socket a newer daemon put there (libuv would unlink the path on
 *   a listener's close: such a listener is left to end with the process instead). `relisten()`
 *   binds a new file at the same path after ours was deleted, under the same rules, keeping
 *   every connection.
 * - Each request gets exactly one response (notifications none); requests on one connection
 *   run concurrently, so responses may come out of order (match them by id). A request whose
 *   id is not a string, number or null is refused (-32600, id null) and never runs.
 * - Params are validated before a handler runs; a bad call gets -32602 with what is wrong.
 * - `afterReply` hooks run right after the response is written, so a subscription's first
 *   notifications always follow the response that created it.
 * - Every `onClose` hook of a connection runs exactly once when it ends, however it ends
 *   (client exit, daemon stop, protocol error): sessions a connection opened are released.
 * - A peer that sends garbage or a huge line, or stops reading, is disconnected; the daemon
 *   does not buffer without bound, for one connection or all together (rpc-inbound.ts):
 *   unfinished messages share one byte budget, one that stalls is timed out, and connections
 *   past `maxConnections` are told so and closed. A refused peer gets one error line first.
 * - Answering is bounded (rpc-limits.ts): a batch longer than `maxBatch` is refused before
 *   any of it runs, an answer past `maxResponseBytes` becomes a LimitExceeded error, and a
 *   failure to encode or write an answer closes that one connection (logged), never the
 *   daemon nor anyone else's connection.
 * - Methods wait for `ready` (daemon start-up), so a client may connect early.
 * - A handover method (`gateway.open`) is valid only as the first line of a connection, alone:
 *   from that line on no other method runs on it. Its answer is written before anything of
 *   the protocol that follows; a failure is answered and the connection closed. The lines
 *   after it, already received or not, go in order to the handover's receiver, under the same
 *   framing limits (line size, unfinished bytes, stall); closing still runs every `onClose`.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { z } from 'zod';
import { errorText } from './errors.js';
import { FrameBudget, FrameRefused, InboundFrames } from './rpc-inbound.js';
import { DEFAULT_RPC_LIMITS, type RpcLimits } from './rpc-limits.js';
import {
  JSONRPC,
  RpcCodes,
  RpcError,
  encode,
  encodeResponses,
  isObject,
  type RpcId,
  type RpcResponse,
} from './rpc-protocol.js';

/** A connected client, as handlers see it. */
export interface RpcConnection {
  readonly id: number;
  readonly closed: boolean;
  /** Sends a server→client notification; dropped silently once the connection is closed. */
  notify(method: string, params?: unknown): void;
  /** Runs once when the connection ends (errors in hooks are logged, not thrown). */
  onClose(hook: () => void | Promise<void>): void;
}

export interface CallContext {
  readonly conn: RpcConnection;
  /** Runs right after this call's response is written. */
  afterReply(hook: () => void): void;
}

/** One entry of the method table. Build it with `method()`. */
export interface RpcMethod {
  /** One line for PROTOCOL.md and `rpc.methods`. */
  readonly summary: string;
  invoke(params: unknown, ctx: CallContext): Promise<unknown>;
}

export type MethodTable = Readonly<Record<string, RpcMethod>>;

/** A handed-over connection, as the protocol that takes it over sees it. */
export interface HandedOver {
  readonly socket: Socket;
  /**
   * Starts delivering the connection's lines (without their newline) to `onLine`: first those
   * that came with or after the handover request, then the rest as they arrive. A line past
   * the framing limits ends the connection with an error line instead.
   */
  receive(onLine: (line: string) => void): void;
  /** The server's limits (unread output, requests in flight). */
  readonly limits: RpcLimits;
}

/** What a handover method opened: the answer to its request, then the protocol that follows. */
export interface Handover {
  readonly result: unknown;
  /** Runs right after the answer is written, unless the connection closed meanwhile. */
  start(connection: HandedOver): void;
}

/** A method that takes its connection over (valid as the first line only). */
export interface HandoverMethod {
  readonly summary: string;
  open(params: unknown, ctx: CallContext): Promise<Handover>;
}

export type HandoverTable = Readonly<Record<string, HandoverMethod>>;

/** `raw` checked by `schema`; an RpcError (-32602) saying what is wrong otherwise. */
function parseParams<S extends z.ZodTypeAny>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `${i.path.length ? i.path.join('.') : 'params'}: ${i.message}`,
    );
    throw new RpcError(RpcCodes.InvalidParams, `invalid params: ${issues.join('; ')}`);
  }
  // zod types `data` of a generic schema as any; it is the schema's output by construction.
  return parsed.data as z.output<S>;
}

/** Declares a method whose params are checked by a zod schema before `handle` sees them. */
export function method<S extends z.ZodTypeAny>(
  params: S,
  summary: string,
  handle: (params: z.output<S>, ctx: CallContext) => unknown,
): RpcMethod {
  return {
    summary,
    invoke(raw, ctx) {
      try {
        return Promise.resolve(handle(parseParams(params, raw), ctx));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}

/** Declares a handover method; its params are checked like a method's. */
export function handover<S extends z.ZodTypeAny>(
  params: S,
  summary: string,
  open: (params: z.output<S>, ctx: CallContext) => Promise<Handover>,
): HandoverMethod {
  return {
    summary,
    async open(raw, ctx) {
      return open(parseParams(params, raw), ctx);
    },
  };
}

/** What the server logs; pino's logger fits. */
export interface RpcLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RpcServerOptions {
  readonly methods: MethodTable;
  /** Methods that take their connection over (see HandoverMethod). */
  readonly handovers?: HandoverTable;
  readonly log?: RpcLog;
  /** Calls wait for this (daemon start-up); a rejection fails them. */
  readonly ready?: Promise<void>;
  /** What clients may make the server hold (rpc-limits.ts); each one defaults. */
  readonly limits?: Partial<RpcLimits>;
  /** Turns a handler's domain error into an RpcError (undefined: an internal error). */
  readonly mapError?: (err: unknown) => RpcError | undefined;
}

const silent: RpcLog = { debug: () => undefined, warn: () => undefined };

export class RpcServer {
  readonly #opts: RpcServerOptions;
  readonly #limits: RpcLimits;
  readonly #log: RpcLog;
  #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #closedConnections = new Set<Promise<void>>();
  readonly #budget: FrameBudget;
  #path: string | undefined;
  #inode: number | undefined;
  #dev: number | undefined;
  #nextId = 1;
  #refusing = false;

  constructor(opts: RpcServerOptions) {
    this.#opts = opts;
    this.#limits = { ...DEFAULT_RPC_LIMITS, ...opts.limits };
    this.#budget = new FrameBudget(this.#limits.maxBufferedBytes);
    this.#log = opts.log ?? silent;
    this.#server = createServer((socket) => this.#accept(socket));
  }

  get connectionCount(): number {
    return this.#sockets.size;
  }

  /** Bytes held for unfinished messages, all connections together. */
  get bufferedBytes(): number {
    return this.#budget.used;
  }

  /** Listens on `socketPath` (which must not exist). Rejects with EADDRINUSE if it does. */
  async listen(socketPath: string): Promise<void> {
    await bindPrivate(this.#server, socketPath);
    this.#own(socketPath);
  }

  /**
   * The socket file this server listens on, as (dev, ino): another file at the path, even a
   * socket, is not ours. Undefined before `listen`.
   */
  get socketFile():
    { readonly path: string; readonly dev: number; readonly ino: number } | undefined {
    if (this.#path === undefined || this.#dev === undefined || this.#inode === undefined)
      return undefined;
    return { path: this.#path, dev: this.#dev, ino: this.#inode };
  }

  /**
   * Binds a new socket file at the same path after ours was deleted; every open connection
   * goes on (it is not the file's). Rejects (EADDRINUSE) when something took the path meanwhile.
   */
  async relisten(): Promise<void> {
    const socketPath = this.#path;
    if (socketPath === undefined) throw new Error('relisten before listen');
    const fresh = createServer((socket) => this.#accept(socket));
    await bindPrivate(fresh, socketPath);
    const old = this.#server;
    this.#server = fresh;
    this.#own(socketPath);
    // Never closed: libuv unlinks the path a listener bound when it closes, which is now the
    // new file. Its deleted file reaches nobody; it ends with the process. Its connections
    // are ours as any other, and end with close().
    old.unref();
  }

  /** Whether the listening path holds our socket file, or nothing (or we never listened). */
  #pathIsOursOrFree(): boolean {
    if (this.#path === undefined) return true;
    try {
      const st = lstatSync(this.#path);
      return st.ino === this.#inode && st.dev === this.#dev;
    } catch {
      return true;
    }
  }

  #own(socketPath: string): void {
    const st = lstatSync(socketPath);
    this.#path = socketPath;
    this.#inode = st.ino;
    this.#dev = st.dev;
  }

  /** Stops accepting, ends every connection (running their onClose hooks), removes the socket. */
  async close(): Promise<void> {
    // libuv unlinks the path a listener bound when it closes, whatever is there by then: a
    // listener whose path holds someone else's file now is left to end with the process.
    const closed = this.#pathIsOursOrFree()
      ? new Promise<void>((resolve) => this.#server.close(() => resolve()))
      : (this.#server.unref(), Promise.resolve());
    this.#removeSocketFile();
    for (const socket of this.#sockets) socket.end();
    // A client that does not hang up after our end is cut off.
    const force = setTimeout(() => {
      for (const socket of this.#sockets) socket.destroy();
    }, 1000);
    await Promise.all([closed, ...this.#closedConnections]);
    clearTimeout(force);
  }

  /** One connection too many: told so, and closed. The daemon logs once per episode. */
  /** Any failure of a method as the error its caller gets. */
  #rpcErrorOf(err: unknown): RpcError {
    if (err instanceof RpcError) return err;
    return (
      this.#opts.mapError?.(err) ??
      new RpcError(RpcCodes.InternalError, err instanceof Error ? err.message : String(err))
    );
  }

  #refuseConnection(socket: Socket): void {
    const max = this.#limits.maxConnections;
    if (!this.#refusing)
      this.#log.warn(
        { connections: this.#sockets.size },
        'too many connections; refusing new ones',
      );
    this.#refusing = true;
    socket.on('error', () => undefined);
    socket.resume(); // Reads and drops, so the peer's hang-up is seen and it closes at once.
    socket.end(
      encode(
        errorResponse(
          null,
          RpcCodes.LimitExceeded,
          `the daemon has ${max} connections open, its limit; try again when some have closed`,
        ),
      ),
    );
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  #removeSocketFile(): void {
    if (this.#path === undefined) return;
    try {
      const st = lstatSync(this.#path);
      if (st.ino === this.#inode && st.dev === this.#dev) unlinkSync(this.#path);
    } catch {
      // Already gone: nothing to remove.
    }
    this.#path = undefined;
  }

  #accept(socket: Socket): void {
    const limits = this.#limits;
    if (this.#sockets.size >= limits.maxConnections) {
      this.#refuseConnection(socket);
      return;
    }
    this.#refusing = false;
    const id = this.#nextId++;
    const hooks: Array<() => void | Promise<void>> = [];
    let closed = false;
    let refused = false;
    this.#sockets.add(socket);
    // A connection over a limit gets one error line, then is closed (cut off if it lingers).
    let cutOff: NodeJS.Timeout | undefined;
    const endWith = (line: string) => {
      if (refused) return;
      refused = true;
      frames.dispose();
      if (!socket.destroyed && !socket.writableEnded) socket.end(line);
      socket.resume(); // A handover paused it; the peer's hang-up must be seen.
      cutOff = setTimeout(() => socket.destroy(), 1000);
    };
    const refuse = (code: number, message: string) => {
      if (refused) return;
      this.#log.warn({ conn: id, err: message }, 'refusing a connection');
      endWith(encode(errorResponse(null, code, message)));
    };
    const frames = new InboundFrames(this.#budget, limits, () =>
      refuse(
        RpcCodes.LimitExceeded,
        `an unfinished message got no new byte for ${limits.idleFrameMs} ms; closing this connection`,
      ),
    );
    const write = (text: string) => {
      if (closed || socket.destroyed || socket.writableEnded) return;
      if (socket.writableLength > limits.maxPendingWriteBytes) {
        this.#log.warn({ conn: id }, 'client stopped reading; disconnecting it');
        socket.destroy();
        return;
      }
      socket.write(text);
    };
    // A notification that cannot be sent whole ends this connection, never the daemon.
    const notify = (method: string, params: unknown) => {
      let text: string;
      try {
        text = encode({ jsonrpc: JSONRPC, method, params });
      } catch (err) {
        this.#log.warn({ conn: id, method, err: errorText(err) }, 'cannot encode a notification');
        socket.destroy();
        return;
      }
      if (text.length > limits.maxResponseBytes) {
        this.#log.warn({ conn: id, method, bytes: text.length }, 'notification too large');
        socket.destroy();
        return;
      }
      write(text);
    };
    const conn: RpcConnection = {
      id,
      get closed() {
        return closed;
      },
      notify,
      onClose: (hook) => {
        if (closed) void runHook(hook, this.#log, id);
        else hooks.push(hook);
      },
    };
    let resolveClosed: () => void = () => undefined;
    const whenClosed = new Promise<void>((resolve) => (resolveClosed = resolve));
    this.#closedConnections.add(whenClosed);
    socket.on('close', () => {
      closed = true;
      frames.dispose();
      clearTimeout(cutOff);
      this.#sockets.delete(socket);
      void Promise.all(hooks.splice(0).map((h) => runHook(h, this.#log, id))).then(() => {
        this.#closedConnections.delete(whenClosed);
        resolveClosed();
      });
    });
    socket.on('error', (err) => this.#log.debug({ conn: id, err: err.message }, 'socket error'));
    /** Set by a handover: its lines go there (held in `pending` until it starts receiving). */
    let handedOver: { pending: string[]; onLine?: (line: string) => void } | undefined;
    let firstLine = true;
    socket.on('data', (chunk: Buffer) => {
      if (refused) return; // Read and dropped until the peer hangs up or is cut off.
      let lines: string[];
      try {
        lines = frames.push(chunk);
      } catch (err) {
        if (!(err instanceof FrameRefused)) throw err;
        refuse(err.code, err.message);
        return;
      }
      for (const line of lines) {
        if (handedOver) {
          if (!handedOver.onLine) {
            handedOver.pending.push(line);
            continue;
          }
          try {
            handedOver.onLine(line);
          } catch (err) {
            // The protocol's own failure costs this connection, never the daemon.
            this.#log.warn({ conn: id, err: errorText(err) }, 'cannot take a line; closing');
            socket.destroy();
            return;
          }
          continue;
        }
        if (line.trim() === '') continue;
        if (firstLine) {
          firstLine = false;
          const request = this.#handoverRequest(line);
          if (request) {
            const taken: { pending: string[]; onLine?: (line: string) => void } = { pending: [] };
            handedOver = taken;
            // Nothing more is read until the handover answered and its protocol receives.
            socket.pause();
            const connection: HandedOver = {
              socket,
              limits,
              receive: (onLine) => {
                for (const pending of taken.pending.splice(0)) onLine(pending);
                taken.onLine = onLine;
                if (!refused) socket.resume();
              },
            };
            this.#handOver(request, conn, connection, write, endWith).catch((err: unknown) => {
              this.#log.warn({ conn: id, err: errorText(err) }, 'handover failed; closing');
              socket.destroy();
            });
            continue;
          }
        }
        // Whatever goes wrong answering one line costs this connection at most.
        this.#handleLine(line, conn, write).catch((err: unknown) => {
          this.#log.warn(
            { conn: id, err: errorText(err) },
            'cannot answer; closing the connection',
          );
          socket.destroy();
        });
      }
    });
  }

  /** The first line, when it is a request to a handover method. */
  #handoverRequest(line: string): Record<string, unknown> | undefined {
    const handovers = this.#opts.handovers;
    if (!handovers) return undefined;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return undefined; // #handleLine answers it.
    }
    if (!isObject(message) || typeof message.method !== 'string') return undefined;
    return Object.hasOwn(handovers, message.method) ? message : undefined;
  }

  /** Opens the handover of `request`, answers it, then starts its protocol (or closes). */
  async #handOver(
    request: Record<string, unknown>,
    conn: RpcConnection,
    connection: HandedOver,
    write: (text: string) => void,
    endWith: (line: string) => void,
  ): Promise<void> {
    const name = request.method as string; // Checked by #handoverRequest.
    const id = idOf(request);
    let opened: Handover;
    try {
      if (request.jsonrpc !== JSONRPC || id === null)
        throw new RpcError(
          RpcCodes.InvalidRequest,
          `${name} must be a JSON-RPC 2.0 request with a string or number id`,
        );
      await this.#opts.ready;
      const handovers = this.#opts.handovers ?? {};
      opened = await handovers[name].open(request.params, { conn, afterReply: () => undefined });
    } catch (err) {
      const rpc = this.#rpcErrorOf(err);
      this.#log.warn({ conn: conn.id, method: name, err: rpc.message }, 'handover refused');
      endWith(
        encodeResponses(
          errorResponse(id, rpc.code, rpc.message, rpc.data),
          this.#limits.maxResponseBytes,
        ),
      );
      return;
    }
    if (conn.closed) return; // The opener's close hooks undo what it opened.
    write(
      encodeResponses(
        { jsonrpc: JSONRPC, id: id ?? null, result: opened.result ?? null },
        this.#limits.maxResponseBytes,
      ),
    );
    this.#log.debug({ conn: conn.id, method: name }, 'connection handed over');
    opened.start(connection);
  }

  async #handleLine(
    line: string,
    conn: RpcConnection,
    write: (text: string) => void,
  ): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write(encode(errorResponse(null, RpcCodes.ParseError, 'parse error: not valid JSON')));
      return;
    }
    const after: Array<() => void> = [];
    const ctx: CallContext = { conn, afterReply: (hook) => after.push(hook) };
    if (Array.isArray(message)) {
      if (message.length === 0) {
        write(encode(errorResponse(null, RpcCodes.InvalidRequest, 'empty batch')));
        return;
      }
      // Refused whole, before anything runs: a batch's answers are built in memory together.
      const max = this.#limits.maxBatch;
      if (message.length > max) {
        write(
          encode(
            errorResponse(
              null,
              RpcCodes.InvalidRequest,
              `a batch of ${message.length} requests; at most ${max} per batch`,
            ),
          ),
        );
        return;
      }
      const responses = await Promise.all(message.map((m) => this.#handleOne(m, ctx)));
      const sent = responses.filter((r): r is RpcResponse => r !== undefined);
      if (sent.length > 0) write(encodeResponses(sent, this.#limits.maxResponseBytes));
    } else {
      const response = await this.#handleOne(message, ctx);
      if (response) write(encodeResponses(response, this.#limits.maxResponseBytes));
    }
    for (const hook of after) {
      try {
        hook();
      } catch (err) {
        this.#log.warn({ conn: conn.id, err: (err as Error).message }, 'afterReply hook failed');
      }
    }
  }

  /** Runs one request; undefined for a notification (no response). */
  async #handleOne(message: unknown, ctx: CallContext): Promise<RpcResponse | undefined> {
    if (!isObject(message) || message.jsonrpc !== JSONRPC || typeof message.method !== 'string') {
      return errorResponse(idOf(message), RpcCodes.InvalidRequest, 'not a JSON-RPC 2.0 request');
    }
    // JSON-RPC 2.0: an id is a string, a number or null; anything else is refused unrun.
    if ('id' in message && message.id !== null && idOf(message) === null) {
      return errorResponse(
        null,
        RpcCodes.InvalidRequest,
        'invalid request: id must be a string, a number or null',
      );
    }
    const isNotification = !('id' in message);
    const id = idOf(message);
    const name = message.method;
    const table = this.#opts.methods;
    const started = Date.now();
    try {
      if (this.#opts.handovers && Object.hasOwn(this.#opts.handovers, name))
        throw new RpcError(
          RpcCodes.InvalidRequest,
          `${name} is valid only alone, as the first line of a new connection`,
        );
      if (!Object.hasOwn(table, name))
        throw new RpcError(RpcCodes.MethodNotFound, `no method ${name}`);
      await this.#opts.ready;
      const result = await table[name].invoke(message.params, ctx);
      this.#log.debug({ conn: ctx.conn.id, method: name, ms: Date.now() - started }, 'call');
      return isNotification
        ? undefined
        : { jsonrpc: JSONRPC, id: id ?? null, result: result ?? null };
    } catch (err) {
      const rpc = this.#rpcErrorOf(err);
      if (rpc.code === RpcCodes.InternalError)
        this.#log.warn({ conn: ctx.conn.id, method: name, err: rpc.message }, 'call failed');
      return isNotification ? undefined : errorResponse(id, rpc.code, rpc.message, rpc.data);
    }
  }
}

function idOf(message: unknown): RpcId | null {
  if (!isObject(message)) return null;
  const id = message.id;
  return typeof id === 'number' || typeof id === 'string' ? id : null;
}

function errorResponse(
  id: RpcId | null,
  code: number,
  message: string,
  data?: unknown,
): RpcResponse {
  return {
    jsonrpc: JSONRPC,
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

async function runHook(hook: () => void | Promise<void>, log: RpcLog, conn: number): Promise<void> {
  try {
    await hook();
  } catch (err) {
    log.warn({ conn, err: (err as Error).message }, 'connection close hook failed');
  }
}

/** Listens on `socketPath` with mode 0600 from the first instant (umask at bind, chmod after). */
async function bindPrivate(server: Server, socketPath: string): Promise<void> {
  // The bind happens synchronously inside listen(); the umask covers exactly that moment.
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      server.once('error', onError);
      server.listen(socketPath, () => {
        server.off('error', onError);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(socketPath, 0o600);
}
