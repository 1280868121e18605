/**
 * Handing a connection of the daemon's socket over to another protocol: a handover method
 * (`gateway.open`) as its first line, after which the connection carries what that method
 * opened (an agent's MCP stream).
 *
 * Guarantees:
 * - Only a connection's first line can hand it over, and only when it parses as a request to
 *   a handover method; that request must be JSON-RPC 2.0 with a string or number id, else it
 *   is refused (-32600). From that line on no method of the table runs on the connection.
 * - Nothing more is read from the socket until the handover is answered and its protocol
 *   receives: the answer is written before anything of the protocol that follows.
 * - A handover that fails to open is answered with its error and the connection closed; one
 *   that opened after its connection closed starts nothing (the opener's close hooks undo it).
 * - The lines after the request, already received or not, reach the receiver in order.
 */
import type { Socket } from 'node:net';
import { messageOf } from '../errors.js';
import type { RpcDispatch } from './dispatch.js';
import type { RpcLimits } from './limits.js';
import type { HandedOver, Handover, HandoverTable, RpcConnection, RpcLog } from './methods.js';
import {
  JSONRPC,
  RpcCodes,
  RpcError,
  encodeResponses,
  errorResponse,
  idOf,
  isObject,
} from './protocol.js';

/**
 * The lines of a handed-over connection: held in `pending` until its protocol receives, then
 * given to `onLine` (the connection passes each line on itself, on its hot path).
 */
export interface HandoverLines {
  readonly pending: string[];
  onLine?: (line: string) => void;
}

/** The connection a handover takes, as the handover writes to it. */
export interface HandoverWire {
  readonly socket: Socket;
  write(text: string): void;
  /** Writes `line` (an error answer) and closes the connection. */
  endWith(line: string): void;
  /** Whether the connection was refused meanwhile (its socket must not read again). */
  refused(): boolean;
}

export interface HandoversOptions {
  readonly handovers?: HandoverTable;
  readonly ready?: Promise<void>;
}

export class Handovers {
  readonly #opts: HandoversOptions;
  readonly #limits: RpcLimits;
  readonly #log: RpcLog;
  readonly #dispatch: Pick<RpcDispatch, 'errorOf'>;

  constructor(
    opts: HandoversOptions,
    limits: RpcLimits,
    log: RpcLog,
    dispatch: Pick<RpcDispatch, 'errorOf'>,
  ) {
    this.#opts = opts;
    this.#limits = limits;
    this.#log = log;
    this.#dispatch = dispatch;
  }

  /** The first line, when it is a request to a handover method. */
  request(line: string): Record<string, unknown> | undefined {
    const handovers = this.#opts.handovers;
    if (!handovers) return undefined;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return undefined; // The dispatch answers it.
    }
    if (!isObject(message) || typeof message.method !== 'string') return undefined;
    return Object.hasOwn(handovers, message.method) ? message : undefined;
  }

  /**
   * Starts the handover `request` (from `request()`) of `conn`: pauses its socket, opens the
   * handover, answers, then lets its protocol receive. Returns where the connection's lines go
   * from now on.
   */
  begin(request: Record<string, unknown>, conn: RpcConnection, wire: HandoverWire): HandoverLines {
    const { socket } = wire;
    const lines: HandoverLines = { pending: [] };
    // Nothing more is read until the handover answered and its protocol receives.
    socket.pause();
    const connection: HandedOver = {
      socket,
      limits: this.#limits,
      receive: (onLine) => {
        for (const pending of lines.pending.splice(0)) onLine(pending);
        lines.onLine = onLine;
        if (!wire.refused()) socket.resume();
      },
    };
    this.#open(request, conn, connection, wire).catch((err: unknown) => {
      this.#log.warn({ conn: conn.id, err: messageOf(err) }, 'handover failed; closing');
      socket.destroy();
    });
    return lines;
  }

  /** Opens the handover of `request`, answers it, then starts its protocol (or closes). */
  async #open(
    request: Record<string, unknown>,
    conn: RpcConnection,
    connection: HandedOver,
    wire: HandoverWire,
  ): Promise<void> {
    const name = request.method as string; // Checked by request().
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
      const rpc = this.#dispatch.errorOf(err);
      this.#log.warn({ conn: conn.id, method: name, err: rpc.message }, 'handover refused');
      wire.endWith(
        encodeResponses(
          errorResponse(id, rpc.code, rpc.message, rpc.data),
          this.#limits.maxResponseBytes,
        ),
      );
      return;
    }
    if (conn.closed) return; // The opener's close hooks undo what it opened.
    wire.write(
      encodeResponses(
        { jsonrpc: JSONRPC, id: id ?? null, result: opened.result ?? null },
        this.#limits.maxResponseBytes,
      ),
    );
    this.#log.debug({ conn: conn.id, method: name }, 'connection handed over');
    opened.start(connection);
  }
}
