/**
 * The CLI's side of the socket: connect, call, listen for notifications.
 *
 * Guarantees:
 * - `connectClient` rejects with DaemonUnavailableError when nothing listens at the path (no
 *   file, or a stale file nobody answers), so every command can say the same sentence.
 * - Nothing connects to a socket that may not be this user's daemon's (its directory not
 *   private, the path a symbolic link, another user's socket, one others may connect to): every
 *   connection, the CLI's and serve's, rejects with UnsafeSocketError (a CliError) before a
 *   byte is sent (socket-path.ts, `checkSocketPlace`).
 * - Every `call` settles: with the result, with an RpcCallError carrying the daemon's code and
 *   message, or with ConnectionLostError when the daemon goes away first (carrying what the
 *   daemon said about the connection before closing it, such as a limit, if it said anything).
 * - A message longer than the client reads (by default as long as any answer the daemon may
 *   send) never throws out of the socket: the connection is dropped and every pending call
 *   fails with AnswerTooLargeError.
 * - Notifications are delivered in the order they arrive, to the listeners of their method.
 * - With `answerTimeoutMs`, a daemon that sends nothing at all for that long while a call
 *   waits (stopped, wedged) fails every pending call with DaemonNotAnsweringError and the
 *   connection is dropped. Silence is what is bounded, not work: halfway through a silence a
 *   cheap `daemon.status` is sent on the same connection (requests run concurrently there),
 *   and any byte the daemon sends, that answer included, counts as life. With no call
 *   waiting (a watch streaming, or idle) nothing is bounded.
 */
import { connect, type Socket } from 'node:net';
import { DEFAULT_RPC_LIMITS } from './limits.js';
import { checkSocketPlace } from './socket-path.js';
import {
  JSONRPC,
  LineReader,
  LineTooLongError,
  encode,
  isObject,
  type RpcErrorObject,
  type RpcId,
} from './protocol.js';

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

/** The daemon sent nothing for `waitedMs` while a call waited for its answer. */
export class DaemonNotAnsweringError extends Error {
  override name = 'DaemonNotAnsweringError';
  constructor(readonly waitedMs: number) {
    super(`the daemon sent nothing for ${waitedMs} ms`);
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

export interface RpcClientOptions {
  /** The longest line read; default: as long as any answer the daemon may send. */
  readonly maxLineBytes?: number;
  /** Give up when the daemon sends nothing this long while a call waits; 0 or absent: never. */
  readonly answerTimeoutMs?: number;
}

/** What a liveness probe asks: cheap, and known to every daemon version. */
const PROBE_METHOD = 'daemon.status';

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

  /** The silence bound (0: none), and what the watchdog knows (see answerTimeoutMs). */
  readonly #answerTimeoutMs: number;
  #lastHeard = 0;
  #waitingSince = 0;
  #watchdog: NodeJS.Timeout | undefined;
  #probeId: RpcId | undefined;
  #silent: DaemonNotAnsweringError | undefined;

  constructor(socket: Socket, options: RpcClientOptions = {}) {
    this.#socket = socket;
    this.#answerTimeoutMs = options.answerTimeoutMs ?? 0;
    // As large as any answer the daemon sends (it replaces larger ones with an error).
    const reader = new LineReader(options.maxLineBytes ?? DEFAULT_RPC_LIMITS.maxResponseBytes);
    socket.on('data', (chunk: Buffer) => {
      this.#lastHeard = Date.now();
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
        clearTimeout(this.#watchdog);
        const lost =
          this.#tooLarge ??
          this.#silent ??
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
    if (this.#waiting() === 0) this.#waitingSince = Date.now();
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: (v) => resolve(v as T), reject });
      this.#socket.write(encode({ jsonrpc: JSONRPC, id, method, ...(params ? { params } : {}) }));
      this.#armWatchdog();
    });
  }

  /** Calls of the user waiting for their answer (the probe is not one). */
  #waiting(): number {
    return this.#pending.size - (this.#probeId === undefined ? 0 : 1);
  }

  #armWatchdog(): void {
    const bound = this.#answerTimeoutMs;
    if (bound <= 0 || this.#watchdog !== undefined || this.#isClosed) return;
    // Checked a few times per bound: a late check only makes the wait a little longer.
    const tick = Math.max(25, Math.min(1000, Math.floor(bound / 4)));
    this.#watchdog = setTimeout(() => {
      this.#watchdog = undefined;
      this.#checkSilence();
    }, tick);
    this.#watchdog.unref();
  }

  #checkSilence(): void {
    if (this.#isClosed || this.#waiting() === 0) return; // Nothing awaited: nothing bounded.
    const bound = this.#answerTimeoutMs;
    const silentFor = Date.now() - Math.max(this.#lastHeard, this.#waitingSince);
    if (silentFor >= bound) {
      this.#silent = new DaemonNotAnsweringError(bound);
      this.#socket.destroy(); // 'close' fails every pending call with it.
      return;
    }
    if (silentFor >= bound / 2 && this.#probeId === undefined) {
      // A long call (a reload that waits for servers) is not silence: ask for a sign of life.
      const id = this.#nextId++;
      this.#probeId = id;
      const done = () => {
        if (this.#probeId === id) this.#probeId = undefined;
      };
      this.#pending.set(id, { resolve: done, reject: done });
      this.#socket.write(encode({ jsonrpc: JSONRPC, id, method: PROBE_METHOD }));
    }
    this.#armWatchdog();
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
export async function connectClient(
  socketPath: string,
  timeoutMs = 5000,
  options: RpcClientOptions = {},
): Promise<RpcClient> {
  return new RpcClient(await connectSocket(socketPath, timeoutMs), options);
}

/**
 * A bare connection to the daemon at `socketPath` (for a protocol of its own, such as
 * `gateway.open`); the caller handles its errors from now on.
 */
export function connectSocket(socketPath: string, timeoutMs = 5000): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    // Whoever listens there gets what we send: the agent's environment, for serve.
    checkSocketPlace(socketPath);
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
