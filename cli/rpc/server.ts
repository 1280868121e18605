/**
 * The daemon's side of the socket: a JSON-RPC 2.0 server over newline-delimited JSON on a
 * Unix socket, with a method table that is a plain object (add a method = add an entry).
 * This file owns the listening socket and the set of connections; one connection is
 * connection.ts, answering a line dispatch.ts, a handover handover.ts, and the
 * method table's types methods.ts.
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
 *   `close()` resolves after every connection's hooks ran; a client that does not hang up
 *   within a second of it is cut off.
 * - A peer that sends garbage or a huge line, or stops reading, is disconnected; the daemon
 *   does not buffer without bound, for one connection or all together (inbound.ts):
 *   unfinished messages share one byte budget, one that stalls is timed out, and connections
 *   past `maxConnections` are told so and closed. A refused peer gets one error line first.
 * - Answering is bounded (limits.ts): a batch longer than `maxBatch` is refused before
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
import { SocketConnection, type ConnectionDeps } from './connection.js';
import { RpcDispatch, type DispatchOptions } from './dispatch.js';
import { Handovers } from './handover.js';
import { FrameBudget } from './inbound.js';
import { DEFAULT_RPC_LIMITS, type RpcLimits } from './limits.js';
import type { RpcLog } from './methods.js';
import { RpcCodes, encode, errorResponse } from './protocol.js';

export interface RpcServerOptions extends DispatchOptions {
  readonly log?: RpcLog;
  /** What clients may make the server hold (limits.ts); each one defaults. */
  readonly limits?: Partial<RpcLimits>;
}

const silent: RpcLog = { debug: () => undefined, warn: () => undefined };

export class RpcServer {
  readonly #limits: RpcLimits;
  readonly #log: RpcLog;
  #server: Server;
  readonly #sockets = new Set<Socket>();
  /** Connections whose close hooks have not all run yet (close() waits for them). */
  readonly #closedConnections = new Set<Promise<void>>();
  readonly #budget: FrameBudget;
  readonly #connectionDeps: ConnectionDeps;
  #path: string | undefined;
  #inode: number | undefined;
  #dev: number | undefined;
  #nextId = 1;
  #refusing = false;

  constructor(opts: RpcServerOptions) {
    this.#limits = { ...DEFAULT_RPC_LIMITS, ...opts.limits };
    this.#budget = new FrameBudget(this.#limits.maxBufferedBytes);
    this.#log = opts.log ?? silent;
    const dispatch = new RpcDispatch(opts, this.#limits, this.#log);
    this.#connectionDeps = {
      budget: this.#budget,
      limits: this.#limits,
      log: this.#log,
      dispatch,
      handovers: new Handovers(opts, this.#limits, this.#log, dispatch),
      onSocketClose: (socket) => this.#sockets.delete(socket),
    };
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
    if (this.#sockets.size >= this.#limits.maxConnections) {
      this.#refuseConnection(socket);
      return;
    }
    this.#refusing = false;
    this.#sockets.add(socket);
    const { ended } = new SocketConnection(socket, this.#nextId++, this.#connectionDeps);
    this.#closedConnections.add(ended);
    void ended.then(() => this.#closedConnections.delete(ended));
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
