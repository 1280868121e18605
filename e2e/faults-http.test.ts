/**
 * Faults of remote (streamable HTTP) servers, through an in-process Session (issue 8, faults):
 * a server that answers 500, and one that drops every connection mid-session and comes back
 * without our session. Both must end in a reconnect with back-off, not in a dead entry.
 *
 * The faults are injected by a small proxy in front of the HTTP fixture (e2e/fixtures/
 * http-server.ts, unchanged): it can answer 500 to everything, cut every open socket, and send
 * traffic to another backend (a restarted server that no longer knows our session).
 */
import assert from 'node:assert/strict';
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { condition, harness, type Harness } from '../controller/testing/harness.js';
import { until } from '../testing/until.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';

const T = { timeout: 90_000 };

/** A reverse proxy whose failures the test switches on and off. */
class FaultProxy {
  mode: 'pass' | 'error500' = 'pass';
  requests500 = 0;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  constructor(public backend: URL) {}

  get url(): string {
    return `http://127.0.0.1:${this.#port}/mcp`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => this.#handle(req, res));
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Cuts every open connection, as a crashing server or a broken network would. */
  dropAll(): void {
    for (const s of this.#sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.dropAll();
    const server = this.#server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.mode === 'error500') {
      this.requests500 += 1;
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' }).end('injected failure');
      return;
    }
    const upstream = request(
      new URL(req.url ?? '/', this.backend),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }
}

describe('faults of a remote server (in-process session)', T, () => {
  let h: Harness;
  const fixtures: HttpFixture[] = [];
  let proxy: FaultProxy;
  beforeEach(async () => {
    h = await harness();
    const fixture = await startHttpFixture({ tools: ['echo'] });
    fixtures.push(fixture);
    proxy = new FaultProxy(new URL(fixture.url));
    await proxy.start();
  });
  afterEach(async () => {
    await h.close();
    await proxy.close();
    await Promise.all(fixtures.splice(0).map((f) => f.close()));
  });

  it(
    'HTTP 500: ConnectFailed with growing back-off, CrashLoopBackOff, Ready once it answers',
    T,
    async () => {
      proxy.mode = 'error500';
      h.write(h.files.user, { mcpServers: { r: { httpUrl: proxy.url } } });
      const s = await h.session({ backoffBaseMs: 100, backoffCapMs: 400 });
      await until(
        'crash loop on 500',
        () => condition(s.kind('McpServer').get('r'), 'Ready') === 'False/CrashLoopBackOff',
        { timeoutMs: 30_000 },
      );
      const failures = s
        .eventList()
        .filter((e) => e.involvedObject === 'server/r' && e.type === 'Warning')
        .map((e) => e.message);
      // The status and the server's own answer reach the user (the SDK's message has no status).
      assert.ok(
        failures.some((m) => /HTTP 500: the server failed.*injected failure/.test(m)),
        `the failure says the status and what the server answered: ${failures.join(' | ')}`,
      );
      assert.ok(
        failures.some((m) => /failure 3/.test(m)),
        'the failures are counted',
      );
      assert.equal(s.registry.get('r'), undefined);
      assert.ok(proxy.requests500 >= 3);

      proxy.mode = 'pass';
      await until(
        'ready once it answers',
        () => condition(s.kind('McpServer').get('r'), 'Ready') === 'True/Connected',
        { timeoutMs: 30_000 },
      );
      assert.deepEqual(s.kind('McpServer').get('r')?.status.tools, ['echo']);
    },
  );

  it(
    'connection dropped mid-session by a restarted server: lost, back-off, reconnected',
    T,
    async () => {
      h.write(h.files.user, { mcpServers: { r: { httpUrl: proxy.url } } });
      const s = await h.session({ backoffBaseMs: 100, backoffCapMs: 400 });
      await until(
        'ready',
        () => condition(s.kind('McpServer').get('r'), 'Ready') === 'True/Connected',
        {
          timeoutMs: 30_000,
        },
      );
      const connectionId = s.kind('McpServer').get('r')?.status.connectionId;
      assert.equal(s.kind('McpServer').get('r')?.status.restarts, 0);

      // The server restarts: every socket is cut and the new one has never heard of our session.
      const restarted = await startHttpFixture({ tools: ['echo'] });
      fixtures.push(restarted);
      proxy.backend = new URL(restarted.url);
      proxy.dropAll();
      // An agent's next call is what finds out, if the event stream did not already.
      await s
        .request('r', { method: 'tools/call', params: { name: 'echo', arguments: {} } })
        .catch(() => undefined);

      await until(
        'lost and reconnected',
        () => (s.kind('McpServer').get('r')?.status.restarts ?? 0) >= 1,
        {
          timeoutMs: 30_000,
        },
      );
      await until(
        'ready again',
        () => condition(s.kind('McpServer').get('r'), 'Ready') === 'True/Connected',
        {
          timeoutMs: 30_000,
        },
      );
      const events = s.eventList().filter((e) => e.involvedObject === 'server/r');
      assert.ok(
        events.some((e) => e.reason === 'Disconnected' && e.type === 'Warning'),
        'the loss is recorded',
      );
      assert.ok(
        events.some((e) => e.reason === 'BackOff'),
        'the reconnect waited its back-off',
      );
      assert.equal(
        s.kind('McpServer').get('r')?.status.connectionId,
        connectionId,
        'same config, same connectionId',
      );
      const answer = await s.request('r', {
        method: 'tools/call',
        params: { name: 'echo', arguments: { n: 1 } },
      });
      assert.equal(answer.isError, undefined);
      assert.ok(Array.isArray(answer.content), 'a tool result');
    },
  );
});
