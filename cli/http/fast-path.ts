/**
 * The endpoint's fast path: a POSTed JSON-RPC request on a session that is served (its
 * workspace chosen) is handed to the session's gateway without the SDK transport's web
 * Request, Response and stream, and its answer is written as a plain `application/json`
 * response (Streamable HTTP lets a server answer a POST with JSON when the client accepts it,
 * and every client must). The endpoint's checks (Host/Origin, path, token, method, budgets,
 * body size, JSON, session) have all passed before this is asked; this module only decides
 * whether the request may skip the transport and writes what comes back.
 *
 * Guarantees:
 * - `fastRequestOf` takes only what the SDK transport would serve the same way: one request
 *   (no batch, no `initialize`), `Accept` naming both `application/json` and
 *   `text/event-stream`, a JSON `Content-Type`, an absent or supported
 *   `Mcp-Protocol-Version` — so every request the transport would refuse still goes to it and
 *   gets its refusal. It is checked against the JSON-RPC request schema once. A request that
 *   asks for progress (`_meta.progressToken`) or is task-augmented (`task`) goes to the
 *   transport: those are answered on a stream.
 * - `FastResponse` writes the answer as one JSON response with the session's id. Should a
 *   message related to the request come before its answer (none does today: such requests
 *   take the transport), the response becomes an event stream, carrying it and then the
 *   answer (without event ids: this stream is not resumable). A request that gets no answer
 *   (cancelled, or the session ended) gets an empty event stream, so the client's exchange
 *   ends. Every write is told to `wrote`, which counts the unread bytes it leaves, also of an
 *   answer written whole (unread.ts); a response dropped for them ends, as on the slow path.
 * - `done` resolves once the response is over, or the client left (an answer that comes after
 *   is dropped).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  isJSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { isObject } from '../../api/index.js';

/** Where the answer to a request on the fast path goes (HttpAgentTransport calls it). */
export interface FastReply {
  /** The request's answer (its result or error). */
  answer(message: JSONRPCMessage): void;
  /** Something else sent for the request before its answer. */
  related(message: JSONRPCMessage): void;
  /** No answer will come: the request was cancelled or the session ended. */
  end(): void;
}

/** `body` as a request the fast path may serve, or undefined (then the transport serves it). */
export function fastRequestOf(req: IncomingMessage, body: unknown): JSONRPCRequest | undefined {
  if (!isObject(body) || body.method === 'initialize') return undefined;
  const params = body.params;
  if (isObject(params) && (params.task !== undefined || hasProgressToken(params._meta)))
    return undefined;
  const accept = req.headers.accept;
  if (
    accept === undefined ||
    !accept.includes('application/json') ||
    !accept.includes('text/event-stream')
  )
    return undefined;
  if (!isJsonContentType(req.headers['content-type'])) return undefined;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
    return undefined;
  return isJSONRPCRequest(body) ? body : undefined;
}

function hasProgressToken(meta: unknown): boolean {
  return isObject(meta) && meta.progressToken !== undefined;
}

/** What the transport would give the gateway with the message (the headers it passes on). */
export function fastExtraOf(req: IncomingMessage, url: URL): MessageExtraInfo {
  const headers: Record<string, string> = {};
  for (const name of ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return { requestInfo: { headers, url } };
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** One request's HTTP response on the fast path. */
export class FastResponse implements FastReply {
  readonly done: Promise<void>;
  readonly #res: ServerResponse;
  readonly #sessionId: string;
  readonly #wrote: () => boolean;
  #state: 'waiting' | 'streaming' | 'over' = 'waiting';
  #finish: () => void = () => undefined;

  constructor(res: ServerResponse, sessionId: string, options: { readonly wrote: () => boolean }) {
    this.#res = res;
    this.#sessionId = sessionId;
    this.#wrote = options.wrote;
    this.done = new Promise<void>((resolve) => (this.#finish = resolve));
    res.once('close', this.#over);
  }

  answer(message: JSONRPCMessage): void {
    if (this.#state === 'over') return;
    if (this.#state === 'streaming') {
      if (this.#event(message)) this.#res.end();
    } else {
      const body = JSON.stringify(message);
      this.#res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        'mcp-session-id': this.#sessionId,
      });
      this.#res.end(body);
      // Written whole, it may still be unread: counted until the client took it.
      this.#wrote();
    }
    this.#over();
  }

  related(message: JSONRPCMessage): void {
    if (this.#state === 'over') return;
    this.#stream();
    this.#event(message);
  }

  end(): void {
    if (this.#state === 'over') return;
    this.#stream();
    this.#res.end();
    this.#over();
  }

  #stream(): void {
    if (this.#state !== 'waiting') return;
    this.#state = 'streaming';
    this.#res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.#sessionId });
  }

  /** Writes one event; false when the response was dropped for its unread bytes. */
  #event(message: JSONRPCMessage): boolean {
    this.#res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (this.#wrote()) return true;
    this.#over();
    return false;
  }

  readonly #over = (): void => {
    if (this.#state === 'over') return;
    this.#state = 'over';
    this.#res.off('close', this.#over);
    this.#finish();
  };
}
