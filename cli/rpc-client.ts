/**
 * The CLI's side of the socket: connect, call, listen for notifications.
 *
 * Guarantees:
 * - `connectClient` rejects with DaemonUnavailableError when nothing listens at the path (no
 *   file, or a stale file nobody answers), so every command can say the same sentence.
 * - Every `call` settles: with the result, with an RpcCallError carrying the daemon's code and
 *   message, or with ConnectionLostError when the daemon goes away first (carrying what the
 *   daemon said about the connection before closing it, such as a limit, if it said anything).
 * - A message longer than the client reads (by default as long as any answer the daemon may
 *   send) never throws out of the socket: the connection is dropped and every pending call
 *   fails with AnswerTooLargeError.
 * - Notifications are delivered in the order they arrive, to the listeners of their method.
 */
import { connect, type Socket } from 'node:net';
import { DEFAULT_RPC_LIMITS } from './rpc-limits.js';
import {
  JSONRPC,
  LineReader,
  LineTooLongError,
  encode,
  isObject,
  type RpcErrorObject,
  type RpcId,
} from './rpc-protocol.js';

export class DaemonUnavailableError extends Error {
  override name = 'DaemonUnavailableError';
  constructor(
    readonly socketPath: string,
    cause: unknown,
  ) {
    super(`nothing listens at ${socketPath}`, { cause });
  }

  /** The errno code of the failed connect (ENOENT, ECONNREFUSED, EACCES…), if any. */
  get code(): string | undefined {
    const c = this.cause as NodeJS.ErrnoException | undefined;
    return c?.code;
  }
}

export class ConnectionLostError extends Error {
  override name = 'ConnectionLostError';
  constructor(
    message: string,
    /** What the daemon said before it closed the connection (e.g. a limit), if anything. */
    readonly reason?: string,
  ) {
    super(reason === undefined ? message : `${message}: ${reason}`);
  }
}

/** The daemon sent a message longer than this client reads. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the daemon's answer is longer than ${maxBytes} bytes, more than mcpctl reads`);
  }
}

/** The daemon answered with a JSON-RPC error. */
export class RpcCallError extends Error {
  override name = 'RpcCallError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };

export class RpcClient {
  readonly #socket: Socket;
  readonly #pending = new Map<RpcId, Pending>();
  readonly #listeners = new Map<string, Set<(params: unknown) => void>>();
  readonly #closed: Promise<void>;
  #nextId = 1;
  #isClosed = false;
  /** The last error the daemon sent about the connection itself (id null). */
  #connectionError: string | undefined;

  /** Set when the daemon sent a line longer than we read; the connection is then dropped. */
  #tooLarge: AnswerTooLargeError | undefined;

  constructor(socket: Socket, options: { maxLineBytes?: number } = {}) {
    this.#socket = socket;
    // As large as any answer the daemon sends (it replaces larger ones with an error).
    const reader = new LineReader(options.maxLineBytes ?? DEFAULT_RPC_LIMITS.maxResponseBytes);
    socket.on('data', (chunk: Buffer) => {
      if (this.#tooLarge) return;
      let lines: string[];
      try {
        lines = reader.push(chunk);
      } catch (err) {
        if (!(err instanceof LineTooLongError)) throw err;
        // Nothing after an unread line can be matched to its call: give up the connection.
        this.#tooLarge = new AnswerTooLargeError(reader.maxLineBytes);
        reader.clear();
        socket.destroy();
        return;
      }
      for (const line of lines) this.#onLine(line);
    });
    this.#closed = new Promise<void>((resolve) => {
      socket.on('close', () => {
        this.#isClosed = true;
        const lost =
          this.#tooLarge ??
          new ConnectionLostError('the daemon closed the connection', this.#connectionError);
        for (const p of this.#pending.values()) p.reject(lost);
        this.#pending.clear();
        resolve();
      });
    });
    socket.on('error', () => {
      // 'close' follows and settles everything pending.
    });
  }

  /** Resolves when the connection has ended (either side). */
  get closed(): Promise<void> {
    return this.#closed;
  }

  call<T = unknown>(method: string, params?: object): Promise<T> {
    if (this.#isClosed)
      return Promise.reject(new ConnectionLostError('not connected to the daemon'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: (v) => resolve(v as T), reject });
      this.#socket.write(encode({ jsonrpc: JSONRPC, id, method, ...(params ? { params } : {}) }));
    });
  }

  /** Listens to a notification method; returns an unsubscribe function. */
  on(method: string, listener: (params: unknown) => void): () => void {
    const set = this.#listeners.get(method) ?? new Set();
    set.add(listener);
    this.#listeners.set(method, set);
    return () => set.delete(listener);
  }

  close(): Promise<void> {
    this.#socket.end();
    return this.#closed;
  }

  #onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return; // A daemon never sends this; nothing sensible to do with it.
    }
    for (const m of Array.isArray(message) ? message : [message]) this.#dispatch(m);
  }

  #dispatch(message: unknown): void {
    if (!isObject(message)) return;
    if (typeof message.method === 'string' && !('id' in message)) {
      for (const l of this.#listeners.get(message.method) ?? []) l(message.params);
      return;
    }
    const id = message.id;
    if (id === null && isObject(message.error) && typeof message.error.message === 'string') {
      this.#connectionError = message.error.message;
      return;
    }
    if (typeof id !== 'number' && typeof id !== 'string') return;
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (isObject(message.error)) {
      const e = message.error as unknown as RpcErrorObject;
      pending.reject(new RpcCallError(e.code, e.message, e.data));
    } else pending.resolve(message.result);
  }
}

/** Connects to the daemon at `socketPath`. */
export async function connectClient(socketPath: string, timeoutMs = 5000): Promise<RpcClient> {
  return new RpcClient(await connectSocket(socketPath, timeoutMs));
}

/**
 * A bare connection to the daemon at `socketPath` (for a protocol of its own, such as
 * `gateway.open`); the caller handles its errors from now on.
 */
export function connectSocket(socketPath: string, timeoutMs = 5000): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = connect(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new DaemonUnavailableError(socketPath, new Error('connect timed out')));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(new DaemonUnavailableError(socketPath, err));
    });
  });
}
