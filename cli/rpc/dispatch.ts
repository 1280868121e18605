/**
 * Answering the daemon's own protocol: one line is a request, a notification or a batch, and
 * each request runs the entry of the method table it names.
 *
 * Guarantees:
 * - Each request gets exactly one response (notifications none); requests on one connection
 *   run concurrently, so responses may come out of order (match them by id). A request whose
 *   id is not a string, number or null is refused (-32600, id null) and never runs.
 * - A line that is not JSON gets -32700; an empty batch, or one longer than `maxBatch`, is
 *   refused whole before any of it runs (a batch's answers are built in memory together).
 * - An answer past `maxResponseBytes` becomes a LimitExceeded error (protocol.ts).
 * - Methods wait for `ready` (daemon start-up); a rejection fails them.
 * - A handover method is refused here: it is valid only alone, as a connection's first line
 *   (handover.ts), never in the middle of a conversation or a batch.
 * - `afterReply` hooks run right after the response is written; one that throws is logged.
 * - A handler's failure is the error its caller gets: an RpcError as it is, a domain error as
 *   `mapError` makes it, anything else -32603 (logged).
 */
import type { RpcLimits } from './limits.js';
import type { CallContext, HandoverTable, MethodTable, RpcConnection, RpcLog } from './methods.js';
import {
  JSONRPC,
  RpcCodes,
  RpcError,
  encode,
  encodeResponses,
  errorResponse,
  idOf,
  isObject,
  type RpcResponse,
} from './protocol.js';
import { messageOf } from '../errors.js';

export interface DispatchOptions {
  readonly methods: MethodTable;
  /** Methods that take their connection over (see HandoverMethod). */
  readonly handovers?: HandoverTable;
  /** Calls wait for this (daemon start-up); a rejection fails them. */
  readonly ready?: Promise<void>;
  /** Turns a handler's domain error into an RpcError (undefined: an internal error). */
  readonly mapError?: (err: unknown) => RpcError | undefined;
}

export class RpcDispatch {
  readonly #opts: DispatchOptions;
  readonly #limits: Pick<RpcLimits, 'maxBatch' | 'maxResponseBytes'>;
  readonly #log: RpcLog;

  constructor(
    opts: DispatchOptions,
    limits: Pick<RpcLimits, 'maxBatch' | 'maxResponseBytes'>,
    log: RpcLog,
  ) {
    this.#opts = opts;
    this.#limits = limits;
    this.#log = log;
  }

  /** Any failure of a method as the error its caller gets. */
  errorOf(err: unknown): RpcError {
    if (err instanceof RpcError) return err;
    return this.#opts.mapError?.(err) ?? new RpcError(RpcCodes.InternalError, messageOf(err));
  }

  /** Answers one line of `conn` through `write`, then runs the calls' `afterReply` hooks. */
  async answer(line: string, conn: RpcConnection, write: (text: string) => void): Promise<void> {
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
      const responses = await Promise.all(message.map((m) => this.#one(m, ctx)));
      const sent = responses.filter((r): r is RpcResponse => r !== undefined);
      if (sent.length > 0) write(encodeResponses(sent, this.#limits.maxResponseBytes));
    } else {
      const response = await this.#one(message, ctx);
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
  async #one(message: unknown, ctx: CallContext): Promise<RpcResponse | undefined> {
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
      const rpc = this.errorOf(err);
      if (rpc.code === RpcCodes.InternalError)
        this.#log.warn({ conn: ctx.conn.id, method: name, err: rpc.message }, 'call failed');
      return isNotification ? undefined : errorResponse(id, rpc.code, rpc.message, rpc.data);
    }
  }
}
