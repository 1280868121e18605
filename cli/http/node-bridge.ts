/**
 * Node's `http` on one side, the SDK's web-standard transport (Request → Response) on the other.
 *
 * Why not the SDK's Node wrapper: it pipes a stream's events to the socket only as fast as the
 * client reads, and everything the client does not read piles up, unbounded, in the stream's
 * queue inside the daemon. Here the queue is emptied as events come, into the socket's buffer,
 * where it is counted (unread.ts): a stream whose unread bytes pass a limit is dropped (its
 * events stay in the replay window, so the client can come back for them with Last-Event-ID).
 *
 * Guarantees:
 * - `readBody` never holds more than `maxBytes` of a body: a declared Content-Length over it is
 *   refused before a byte is read, a longer body as soon as it passes the limit.
 * - `sendResponse` writes status, headers (within the tick, so an SSE client sees its stream
 *   open) and body, and tells `wrote` after every write; once `wrote` says the response was
 *   dropped, nothing more is taken from the body. When the client goes away, or the response
 *   is dropped, the body is cancelled (the transport forgets the stream).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type BodyRead =
  | { readonly kind: 'ok'; readonly text: string }
  | { readonly kind: 'tooLarge'; readonly bytes: number }
  | { readonly kind: 'aborted' };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes)
    return Promise.resolve({ kind: 'tooLarge', bytes: declared });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let done = false;
    const finish = (result: BodyRead) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        chunks.length = 0;
        // Nothing more is read; the answer closes the connection.
        req.pause();
        finish({ kind: 'tooLarge', bytes });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8') }));
    req.once('aborted', () => finish({ kind: 'aborted' }));
    req.once('error', () => finish({ kind: 'aborted' }));
    req.once('close', () => finish({ kind: 'aborted' }));
  });
}

/**
 * The headers the transport reads. Only these are passed on: the others cost time on every
 * request, and the bearer token has no business beyond the endpoint's check.
 */
const TRANSPORT_HEADERS = [
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
] as const;

/** The web Request the transport reads: method, URL and its headers (a body is passed parsed). */
export function webRequestOf(req: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(url, { method: req.method ?? 'GET', headers });
}

export interface SendOptions {
  /**
   * Called after each write: counts the response's unread bytes (UnreadLedger.wrote); false
   * when the response was dropped for them.
   */
  readonly wrote: () => boolean;
  /** Written before the body (an SSE priming event). */
  readonly prefix?: string;
  /**
   * Runs once the body is over — ended, dropped, or cancelled because the client left — right
   * after the transport was told (synchronously with that, so nothing is sent between).
   */
  readonly onEnd?: () => void;
}

/** Writes `response` to `res`; resolves when the body ended, was dropped or the client left. */
export async function sendResponse(
  res: ServerResponse,
  response: Response,
  options: SendOptions,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  const body = response.body;
  if (body === null) {
    res.end();
    return;
  }
  // Writes of one tick leave in one packet: the headers with the first event, the last event
  // with the end of the response (a call's answer is usually both).
  let corked = false;
  const soon = () => {
    if (corked) return;
    corked = true;
    res.cork();
    process.nextTick(() => {
      corked = false;
      res.uncork();
    });
  };
  soon();
  res.flushHeaders();
  const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
  let over = false;
  const end = () => {
    if (over) return;
    over = true;
    // Cancelling runs the stream's cancel step at once: the transport forgets the stream now.
    reader.cancel().catch(() => undefined);
    options.onEnd?.();
  };
  res.once('close', end);
  try {
    let kept = true;
    if (options.prefix) {
      res.write(options.prefix);
      kept = options.wrote();
    }
    while (kept) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      soon();
      res.write(value);
      kept = options.wrote();
    }
  } catch {
    // The body failed or was cancelled: end what was sent.
  } finally {
    res.off('close', end);
    end();
  }
  if (!res.destroyed) res.end();
}

/** A JSON-RPC error answer of the endpoint itself (before the transport sees the request). */
export function replyError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}
