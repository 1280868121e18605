/**
 * One client connection of the daemon's socket server (server.ts), from accept to close:
 * its framing, its writes, its close hooks, and where each of its lines goes.
 *
 * Guarantees:
 * - Every `onClose` hook runs exactly once when the connection ends, however it ends (client
 *   exit, daemon stop, protocol error); one added after the end runs at once. A hook that
 *   fails is logged. `ended` resolves when every hook has run.
 * - A peer that sends a line past the limits, or holds an unfinished message past the shared
 *   budget or for too long (inbound.ts), gets one error line and is closed, cut off after
 *   a second if it lingers; what it sends meanwhile is read and dropped.
 * - A peer that stops reading (unread output past `maxPendingWriteBytes`) is cut off; a
 *   notification that cannot be encoded, or is larger than `maxResponseBytes`, ends this
 *   connection, never the daemon. Nothing is written once the connection is closed.
 * - Lines go in order: to the handover when the first line opened one (handover.ts),
 *   else each to the dispatch (dispatch.ts); blank lines are skipped before a handover.
 *   A failure answering or taking a line costs this connection only (logged).
 */
import type { Socket } from 'node:net';
import { messageOf } from '../errors.js';
import type { RpcDispatch } from './dispatch.js';
import type { HandoverLines, HandoverWire, Handovers } from './handover.js';
import { FrameRefused, InboundFrames, type FrameBudget } from './inbound.js';
import type { RpcLimits } from './limits.js';
import type { RpcConnection, RpcLog } from './methods.js';
import { JSONRPC, RpcCodes, encode, errorResponse } from './protocol.js';

/** What every connection of one server shares. */
export interface ConnectionDeps {
  readonly budget: FrameBudget;
  readonly limits: RpcLimits;
  readonly log: RpcLog;
  readonly dispatch: RpcDispatch;
  readonly handovers: Handovers;
  /** The socket closed; the connection's close hooks run next. */
  onSocketClose(socket: Socket): void;
}

type CloseHook = () => void | Promise<void>;

export class SocketConnection implements RpcConnection {
  readonly id: number;
  /** Resolves once the connection closed and every close hook ran. */
  readonly ended: Promise<void>;
  readonly #socket: Socket;
  readonly #deps: ConnectionDeps;
  readonly #frames: InboundFrames;
  readonly #hooks: CloseHook[] = [];
  #closed = false;
  /** Over a limit: one error line was sent; the rest of what the peer sends is dropped. */
  #refused = false;
  #cutOff: NodeJS.Timeout | undefined;
  /** Set by a handover: its lines go there. */
  #handedOver: HandoverLines | undefined;
  #firstLine = true;

  constructor(socket: Socket, id: number, deps: ConnectionDeps) {
    this.id = id;
    this.#socket = socket;
    this.#deps = deps;
    const { limits } = deps;
    this.#frames = new InboundFrames(deps.budget, limits, () =>
      this.#refuse(
        RpcCodes.LimitExceeded,
        `an unfinished message got no new byte for ${limits.idleFrameMs} ms; closing this connection`,
      ),
    );
    let resolveEnded: () => void = () => undefined;
    this.ended = new Promise<void>((resolve) => (resolveEnded = resolve));
    socket.on('close', () => {
      this.#closed = true;
      this.#frames.dispose();
      clearTimeout(this.#cutOff);
      deps.onSocketClose(socket);
      void Promise.all(this.#hooks.splice(0).map((h) => this.#runHook(h))).then(resolveEnded);
    });
    socket.on('error', (err) => deps.log.debug({ conn: id, err: err.message }, 'socket error'));
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
  }

  get closed(): boolean {
    return this.#closed;
  }

  get pendingWriteBytes(): number {
    return this.#socket.writableLength;
  }

  /** A notification that cannot be sent whole ends this connection, never the daemon. */
  notify(method: string, params?: unknown): void {
    const { log, limits } = this.#deps;
    let text: string;
    try {
      text = encode({ jsonrpc: JSONRPC, method, params });
    } catch (err) {
      log.warn({ conn: this.id, method, err: messageOf(err) }, 'cannot encode a notification');
      this.#socket.destroy();
      return;
    }
    if (text.length > limits.maxResponseBytes) {
      log.warn({ conn: this.id, method, bytes: text.length }, 'notification too large');
      this.#socket.destroy();
      return;
    }
    this.#write(text);
  }

  onClose(hook: CloseHook): void {
    if (this.#closed) void this.#runHook(hook);
    else this.#hooks.push(hook);
  }

  /** Writes `text` unless closed; a peer that stopped reading is cut off instead. */
  readonly #write = (text: string): void => {
    const socket = this.#socket;
    if (this.#closed || socket.destroyed || socket.writableEnded) return;
    if (socket.writableLength > this.#deps.limits.maxPendingWriteBytes) {
      this.#deps.log.warn({ conn: this.id }, 'client stopped reading; disconnecting it');
      socket.destroy();
      return;
    }
    socket.write(text);
  };

  /** A connection over a limit gets one error line, then is closed (cut off if it lingers). */
  #endWith(line: string): void {
    if (this.#refused) return;
    this.#refused = true;
    this.#frames.dispose();
    const socket = this.#socket;
    if (!socket.destroyed && !socket.writableEnded) socket.end(line);
    socket.resume(); // A handover paused it; the peer's hang-up must be seen.
    this.#cutOff = setTimeout(() => socket.destroy(), 1000);
  }

  #refuse(code: number, message: string): void {
    if (this.#refused) return;
    this.#deps.log.warn({ conn: this.id, err: message }, 'refusing a connection');
    this.#endWith(encode(errorResponse(null, code, message)));
  }

  #onData(chunk: Buffer): void {
    if (this.#refused) return; // Read and dropped until the peer hangs up or is cut off.
    let lines: string[];
    try {
      lines = this.#frames.push(chunk);
    } catch (err) {
      if (!(err instanceof FrameRefused)) throw err;
      this.#refuse(err.code, err.message);
      return;
    }
    const { dispatch, log } = this.#deps;
    for (const line of lines) {
      const handedOver = this.#handedOver;
      if (handedOver) {
        if (!handedOver.onLine) {
          handedOver.pending.push(line);
          continue;
        }
        try {
          handedOver.onLine(line);
        } catch (err) {
          // The protocol's own failure costs this connection, never the daemon.
          log.warn({ conn: this.id, err: messageOf(err) }, 'cannot take a line; closing');
          this.#socket.destroy();
          return;
        }
        continue;
      }
      if (line.trim() === '') continue;
      if (this.#firstLine) {
        this.#firstLine = false;
        const request = this.#deps.handovers.request(line);
        if (request) {
          this.#handedOver = this.#deps.handovers.begin(request, this, this.#wire());
          continue;
        }
      }
      // Whatever goes wrong answering one line costs this connection at most.
      dispatch.answer(line, this, this.#write).catch((err: unknown) => {
        log.warn({ conn: this.id, err: messageOf(err) }, 'cannot answer; closing the connection');
        this.#socket.destroy();
      });
    }
  }

  /** This connection as a handover writes to it. */
  #wire(): HandoverWire {
    return {
      socket: this.#socket,
      write: this.#write,
      endWith: (line) => this.#endWith(line),
      refused: () => this.#refused,
    };
  }

  async #runHook(hook: CloseHook): Promise<void> {
    try {
      await hook();
    } catch (err) {
      this.#deps.log.warn(
        { conn: this.id, err: (err as Error).message },
        'connection close hook failed',
      );
    }
  }
}
