/**
 * Helpers for the e2e tests of the daemon's HTTP endpoint (issue #26): the built daemon started
 * with `--http 127.0.0.1:0` (the system picks a free port, so parallel tests never race for
 * one; the daemon logs the URL it bound), its token, and SDK client transports that send it.
 *
 * Guarantees: `startHttpDaemon` resolves only once the daemon answers on its socket and has
 * logged its URL; the token is read from the file the daemon made, as a user's `mcpctl token`
 * would print it.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, type Root } from '@modelcontextprotocol/sdk/types.js';
import type { DaemonProcess, TestEnv } from './harness.js';
import { until } from '../testing/until.js';

export interface HttpDaemon {
  readonly daemon: DaemonProcess;
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly token: string;
}

/** The URL an HTTP daemon logged (`http listening`), once it did. */
export function loggedUrl(daemon: DaemonProcess): string | undefined {
  for (const line of daemon.stderr().split('\n')) {
    if (!line.includes('http listening')) continue;
    try {
      const parsed = JSON.parse(line) as { url?: unknown };
      if (typeof parsed.url === 'string') return parsed.url;
    } catch {
      // A line being written.
    }
  }
  return undefined;
}

export function tokenFile(env: TestEnv): string {
  return path.join(env.home, '.mcpctl', 'http-token');
}

/**
 * `mcpctl daemon --http 127.0.0.1:0 …args` in `env` (workspace, debounce 50 ms, drain 0, as
 * `env.startDaemon`), with `vars` added to its environment; resolves with its URL and token
 * once it listens.
 */
export async function startHttpDaemon(
  env: TestEnv,
  args: readonly string[] = [],
  vars: Record<string, string> = {},
): Promise<HttpDaemon> {
  const daemon = env.spawnDaemon(
    [
      'daemon',
      '--workspace',
      env.workspace,
      '--debounce-ms',
      '50',
      '--drain-delay-ms',
      '0',
      '--http',
      '127.0.0.1:0',
      ...args,
    ],
    { env: vars },
  );
  const url = await until(
    'the daemon to log its HTTP url',
    () => {
      if (daemon.child.exitCode !== null || daemon.child.signalCode !== null)
        throw new Error(`daemon exited early: ${daemon.stderr()}`);
      return loggedUrl(daemon);
    },
    { timeoutMs: 20_000 },
  );
  const token = readFileSync(tokenFile(env), 'utf8').trim();
  return { daemon, url, token };
}

/** An SDK client transport to `url` (plus `query`) sending the bearer token. */
export function httpTransport(
  http: { readonly url: string; readonly token: string },
  opts: { query?: Record<string, string> } & StreamableHTTPClientTransportOptions = {},
): StreamableHTTPClientTransport {
  const { query, ...rest } = opts;
  const url = new URL(http.url);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return new StreamableHTTPClientTransport(url, {
    ...rest,
    requestInit: {
      ...rest.requestInit,
      headers: { Authorization: `Bearer ${http.token}` },
    },
  });
}

/** A client declaring roots; `answer` gives its roots/list result (or never, to hang). */
export async function rootsAgent(
  http: HttpDaemon,
  answer: () => Promise<{ roots: Root[] }>,
  opts: { noGetStream?: boolean } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'e2e-roots', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, answer);
  const fetchFn = (url: string | URL, init?: RequestInit): Promise<Response> =>
    opts.noGetStream && init?.method === 'GET'
      ? Promise.resolve(new Response(null, { status: 405 }))
      : fetch(url, init);
  await client.connect(httpTransport(http, { fetch: fetchFn }));
  return client;
}

/** A `roots/list` answer naming these directories as `file://` roots, in order. */
export const rootsOf =
  (...dirs: string[]) =>
  (): Promise<{ roots: Root[] }> =>
    Promise.resolve({ roots: dirs.map((d) => ({ uri: pathToFileURL(d).href })) });

/** What a raw HTTP request got: status, headers, and the body (an SSE body up to its answer). */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  /** Path and query (default `/mcp` of the url). */
  readonly path?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Send the body in chunks without a Content-Length. */
  readonly chunked?: boolean;
}

/** The first request of a session, as a raw JSON body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw-e2e', version: '1.0.0' },
  },
});

/** The headers an MCP client sends with a POST (token not included). */
export const MCP_POST_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

/**
 * One request over a fresh connection with exactly these headers (a `Host` given wins). An SSE
 * answer is read until its first JSON-RPC answer; then the connection is closed.
 */
export function rawRequest(url: string, r: RawRequest = {}): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: target.hostname,
      port: target.port,
      method: r.method ?? 'POST',
      path: r.path ?? target.pathname,
      headers: {
        ...(r.body !== undefined && !r.chunked
          ? { 'Content-Length': String(Buffer.byteLength(r.body)) }
          : {}),
        ...r.headers,
      },
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      const done = () => {
        res.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      };
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
        // An SSE answer ends when the first JSON-RPC answer arrived.
        if (/^data: \{.*"(result|error)"/m.test(body)) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    if (r.body !== undefined && r.chunked) {
      const all = Buffer.from(r.body);
      for (let at = 0; at < all.length; at += 16 * 1024)
        req.write(all.subarray(at, at + 16 * 1024));
      req.end();
    } else req.end(r.body);
  });
}

/** Opens a session with a raw initialize; resolves with its Mcp-Session-Id. */
export async function rawInitialize(
  http: { readonly url: string; readonly token: string },
  query = '',
): Promise<string> {
  const answer = await rawRequest(http.url, {
    path: `/mcp${query}`,
    headers: { ...MCP_POST_HEADERS, Authorization: `Bearer ${http.token}` },
    body: INITIALIZE,
  });
  const id = answer.headers['mcp-session-id'];
  if (answer.status !== 200 || typeof id !== 'string')
    throw new Error(`initialize answered ${answer.status}: ${answer.body}`);
  return id;
}
