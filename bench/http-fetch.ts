/**
 * The bench's HTTP client under the SDK's StreamableHTTPClientTransport (its `fetch` option):
 * a `fetch` over `node:http` with a keep-alive agent, instead of Node's built-in fetch
 * (undici). The SDK client, its transport and every check they make are unchanged; only the
 * HTTP/1.1 client beneath differs, as it does between the agents that connect (Claude Code,
 * VS Code and Gemini CLI each bring their own). Connections are kept and reused by the agent
 * the caller passes; what this saves is undici's per-request cost on the client side, about
 * as much as a call's whole round trip through serve.
 *
 * Guarantees: a JSON (or any non-stream) body is read whole before the answer is handed over,
 * as a response object with what the SDK transport reads of one (status, headers, `text()`,
 * `json()`), not a web `Response`; an event stream is handed over as it comes, in a `Response`;
 * `signal` aborts every request still open under it and their streams; a signal gets one
 * listener however many requests it covers (the SDK passes one long-lived signal with every
 * request, hundreds at once in the parallel figure), and each exchange leaves the signal's set
 * when it is over; redirects are never followed.
 */
import { request, type Agent, type ClientRequest } from 'node:http';
import { Readable } from 'node:stream';

/** Statuses a Response may not carry a body with. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

function headersOf(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '');
  return headers;
}

/**
 * A JSON (or other whole) answer as the SDK reads it: status, headers and the body as text or
 * JSON, without the web stream a `Response` wraps every body in (making and draining it cost
 * about as much as the rest of the exchange). `body` is null: nothing is left to read or cancel.
 * Only what the transport uses is there; it is cast to `Response` for the `fetch` type.
 */
function wholeResponse(status: number, statusText: string, headers: Headers, bytes: Buffer) {
  let used = false;
  const text = (): Promise<string> => {
    if (used) return Promise.reject(new TypeError('the body was read already'));
    used = true;
    return Promise.resolve(bytes.toString('utf8'));
  };
  const response = {
    ok: status >= 200 && status < 300,
    status,
    statusText,
    headers,
    redirected: false,
    type: 'basic',
    url: '',
    body: null,
    get bodyUsed() {
      return used;
    },
    text,
    json: async (): Promise<unknown> => JSON.parse(await text()) as unknown,
    arrayBuffer: async (): Promise<ArrayBuffer> => {
      await text();
      return new Uint8Array(bytes).buffer;
    },
  };
  return response as unknown as Response;
}

/** The requests open under each signal, and the one listener that aborts them all. */
const openUnder = new WeakMap<AbortSignal, Set<ClientRequest>>();

function follow(signal: AbortSignal, req: ClientRequest): () => void {
  let open = openUnder.get(signal);
  if (!open) {
    const requests = new Set<ClientRequest>();
    open = requests;
    openUnder.set(signal, requests);
    signal.addEventListener(
      'abort',
      () => {
        for (const r of requests) r.destroy(signal.reason as Error);
        requests.clear();
      },
      { once: true },
    );
  }
  const requests = open;
  requests.add(req);
  return () => requests.delete(req);
}

/** A `fetch` for http: URLs over `agent` (`new Agent({ keepAlive: true })`). */
export function nodeFetch(agent: Agent): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : input);
      const headers: Record<string, string> = {};
      const given = init?.headers;
      // The SDK passes a Headers (its requestInit's headers merged with its own).
      if (given instanceof Headers) given.forEach((value, name) => (headers[name] = value));
      else if (Array.isArray(given)) for (const [name, value] of given) headers[name] = value;
      else if (given) Object.assign(headers, given);
      const body = init?.body;
      if (body !== undefined && body !== null && typeof body !== 'string')
        throw new Error('nodeFetch sends string bodies only');
      if (body) headers['content-length'] = String(Buffer.byteLength(body));
      const signal = init?.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason as Error);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: init?.method ?? 'GET',
          headers,
          agent,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const responseHeaders = headersOf(res.rawHeaders);
          if (NO_BODY.has(status)) {
            res.resume();
            res.once('end', done);
            return resolve(new Response(null, { status, headers: responseHeaders }));
          }
          if (res.headers['content-type']?.startsWith('text/event-stream')) {
            res.once('close', done);
            return resolve(
              new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, {
                status,
                headers: responseHeaders,
              }),
            );
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('end', () => {
            done();
            resolve(
              wholeResponse(
                status,
                res.statusMessage ?? '',
                responseHeaders,
                Buffer.concat(chunks),
              ),
            );
          });
          res.once('error', (err) => {
            done();
            reject(err);
          });
        },
      );
      const done = signal ? follow(signal, req) : () => undefined;
      req.once('error', (err) => {
        done();
        reject(err);
      });
      req.end(body ?? undefined);
    });
}
