/**
 * The wire format between `mcpctl` and its daemon: JSON-RPC 2.0, one JSON text per line
 * (newline-delimited), over the daemon's Unix socket. See cli/rpc/PROTOCOL.md.
 *
 * Guarantees:
 * - `LineReader` yields complete lines only, across any chunking, and refuses a line longer
 *   than `maxLineBytes` (a peer cannot make us buffer without bound).
 * - `encode` never emits a raw newline inside a message (JSON.stringify escapes them).
 * - `encodeResponses` never throws and never returns a line longer than its limit plus the
 *   small error answers that replace what did not fit: an answer too large to send (or to
 *   build at all: V8 caps string length) becomes a LimitExceeded error for its id.
 * - Error codes: the JSON-RPC reserved ones, plus mcpctl's own in -32000…-32099.
 */
import { LIMIT_EXCEEDED_CODE, MAX_MESSAGE_BYTES } from '../../api/limits.js';
import { messageOf } from '../errors.js';
import { isObject } from '../../api/is-object.js';

export const JSONRPC = '2.0';

/** The handover method that opens an agent's connection; valid only as its first line. */
export const GATEWAY_OPEN = 'gateway.open';

/**
 * The version of what an agent connection carries besides MCP: `gateway.open`'s params and
 * answer, and the daemon's stop notice. `mcpctl serve` sends its own (`params.protocol`); the
 * daemon answers the one both speak (`result.protocol`), or refuses with ProtocolMismatch.
 * 1: before it had a number (no `protocol` either way, no stop notice); 2: the answer names
 * the daemon (`pid`, `version`), and a daemon that stops sends DAEMON_STOPPING first.
 */
export const GATEWAY_PROTOCOL = 2;
/** The oldest protocol this mcpctl still speaks, as serve and as daemon. */
export const MIN_GATEWAY_PROTOCOL = 1;

/**
 * The daemon's last line on an agent connection of protocol 2 or later, when it stops:
 * `{ reconnect: "now" | "on-demand", reason }`. Serve takes it (the agent never sees it).
 */
export const DAEMON_STOPPING = 'mcpctl/daemonStopping';

/** How serves should come back after a stop: at once (a restart), or at their next request. */
export type ReconnectMode = 'now' | 'on-demand';

export type RpcId = number | string;

export interface RpcRequest {
  readonly jsonrpc: typeof JSONRPC;
  readonly id: RpcId;
  readonly method: string;
  readonly params?: unknown;
}

/** A request without an id: no response. The daemon uses these for watch updates. */
export interface RpcNotification {
  readonly jsonrpc: typeof JSONRPC;
  readonly method: string;
  readonly params?: unknown;
}

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type RpcResponse =
  | { readonly jsonrpc: typeof JSONRPC; readonly id: RpcId | null; readonly result: unknown }
  | { readonly jsonrpc: typeof JSONRPC; readonly id: RpcId | null; readonly error: RpcErrorObject };

export const RpcCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** No such server, session or watch. */
  NotFound: -32001,
  /** approve/reject of a server that needs no approval. */
  NotGated: -32002,
  /** The daemon is shutting down and takes no new work. */
  ShuttingDown: -32003,
  /** The request is well-formed but cannot be done now (e.g. a workspace that does not exist). */
  Failed: -32004,
  /** The request or its answer passes one of the daemon's limits (PROTOCOL.md, Limits). */
  LimitExceeded: LIMIT_EXCEEDED_CODE,
  /** `gateway.open` from a serve whose protocol this daemon does not speak. */
  ProtocolMismatch: -32006,
} as const;

/** An error a method handler throws on purpose; its code and message reach the client. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** An error answer; `data` only when there is some. */
export function errorResponse(
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

/** The id of a request as an answer names it: null unless a string or a number. */
export function idOf(message: unknown): RpcId | null {
  if (!isObject(message)) return null;
  const id = message.id;
  return typeof id === 'number' || typeof id === 'string' ? id : null;
}

export function encode(
  message: RpcRequest | RpcNotification | RpcResponse | RpcResponse[],
): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * One response or a batch of them as one line, bounded by `maxBytes` in total. An answer that
 * cannot be encoded, or would pass the limit, is replaced by an error answer for its id (so
 * the caller learns what happened); the answers before it are kept.
 */
export function encodeResponses(responses: RpcResponse | RpcResponse[], maxBytes: number): string {
  const list = Array.isArray(responses) ? responses : [responses];
  const parts: string[] = [];
  let total = 2; // Brackets or newline.
  for (const response of list) {
    let part = encodeOne(response, maxBytes - total);
    if (part === undefined) part = JSON.stringify(tooLarge(response.id, maxBytes));
    total += part.length + 1;
    parts.push(part);
  }
  return Array.isArray(responses) ? `[${parts.join(',')}]\n` : `${parts[0]}\n`;
}

/** The JSON of one response, or undefined when it does not fit in `room` bytes. */
function encodeOne(response: RpcResponse, room: number): string | undefined {
  let text: string;
  try {
    text = JSON.stringify(response);
  } catch (err) {
    if (err instanceof RangeError) return undefined; // Past V8's string limit.
    const message = `the answer cannot be encoded: ${messageOf(err)}`;
    return JSON.stringify({
      jsonrpc: JSONRPC,
      id: response.id,
      error: { code: RpcCodes.InternalError, message },
    });
  }
  // Cheap check first: a string's byte length is at least its length.
  if (text.length > room || Buffer.byteLength(text) > room) return undefined;
  return text;
}

function tooLarge(id: RpcId | null, maxBytes: number): RpcResponse {
  return {
    jsonrpc: JSONRPC,
    id,
    error: {
      code: RpcCodes.LimitExceeded,
      message: `the answer is larger than the daemon's limit of ${maxBytes} bytes; ask for less (name the servers you want: mcpctl get servers NAME…)`,
    },
  };
}

export class LineTooLongError extends Error {
  override name = 'LineTooLongError';
}

/** Splits a byte stream into lines (without the newline). */
export class LineReader {
  #buffered: Buffer[] = [];
  #size = 0;

  constructor(readonly maxLineBytes = MAX_MESSAGE_BYTES) {}

  /** Bytes held for the line not finished yet. */
  get bufferedBytes(): number {
    return this.#size;
  }

  /** Drops the unfinished line. */
  clear(): void {
    this.#buffered = [];
    this.#size = 0;
  }

  /** @throws LineTooLongError when a line grows past the limit. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      this.#check(part.length);
      this.#buffered.push(part);
      lines.push(Buffer.concat(this.#buffered).toString('utf8'));
      this.#buffered = [];
      this.#size = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      // A copy when the chunk also held whole lines: the tail must not keep them in memory,
      // so what `bufferedBytes` says is what is held.
      const rest = start === 0 ? chunk : Buffer.from(chunk.subarray(start));
      this.#check(rest.length);
      this.#buffered.push(rest);
      this.#size += rest.length;
    }
    return lines;
  }

  #check(extra: number): void {
    if (this.#size + extra > this.maxLineBytes)
      throw new LineTooLongError(`message longer than ${this.maxLineBytes} bytes`);
  }
}

/** api/'s isObject, re-exported where cli/'s socket modules import it. */
export { isObject };
