/**
 * What the daemon's socket server (server.ts) offers the code behind it: the method table,
 * handover methods, the connection and call as a handler sees them, and what it logs.
 *
 * Guarantees:
 * - A method's or handover's params are checked by its zod schema before its handler sees
 *   them; a bad call fails with -32602 naming each problem, and the handler never runs.
 * - A handler that throws synchronously fails its call like one that rejects: one error answer,
 *   never a thrown exception in the server.
 */
import type { Socket } from 'node:net';
import type { z } from 'zod';
import type { RpcLimits } from './limits.js';
import { RpcCodes, RpcError } from './protocol.js';

/** A connected client, as handlers see it. */
export interface RpcConnection {
  readonly id: number;
  readonly closed: boolean;
  /** Bytes written and not yet taken by the peer (a streaming method waits while it is high). */
  readonly pendingWriteBytes?: number;
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

/** What the server logs; pino's logger fits. */
export interface RpcLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

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
