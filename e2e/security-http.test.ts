/**
 * Attacks on the daemon's HTTP endpoint (issue #26), by raw HTTP clients against the built
 * daemon started with `--http 127.0.0.1:0` in a temp HOME: a local process without the token,
 * a web page (DNS rebinding, another origin), an oversized body, clients that never read,
 * floods of sessions and streams, JSON-RPC batches, and a token file someone tampered with.
 *
 * What must hold: nothing reaches MCP (no session opens) without the token and a loopback
 * Host/Origin; bodies, sessions, streams and unread bytes (per session and all together) are
 * bounded, the client that reads least paying; a full session table gives the least recently
 * active idle session's place to a new one, and refuses only while every session is busy; a
 * batch is refused where the session's protocol has none; an unknown session is 404, also
 * after a restart; the token file is trusted only when private and not a link, and the token
 * shows in no output or log.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestEnv, condition, type DaemonProcess } from './harness.js';
import {
  INITIALIZE,
  MCP_POST_HEADERS,
  httpTransport,
  rawInitialize,
  rawRequest,
  startHttpDaemon,
  tokenFile,
  type HttpDaemon,
} from './http-agent.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

const opened = (daemon: DaemonProcess): number =>
  daemon
    .stderr()
    .split('\n')
    .filter((l) => l.includes('http agent session opened')).length;

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A JSON-RPC request as a raw body. */
const rpc = (id: number, method: string, params: unknown = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** The headers of a request in an open session. */
const inSession = (http: HttpDaemon, session: string) => ({
  ...MCP_POST_HEADERS,
  ...auth(http.token),
  'Mcp-Session-Id': session,
  'Mcp-Protocol-Version': '2025-11-25',
});

/** The first request of a session at protocol `version`, as a raw body. */
const initializeAt = (version: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'raw-e2e', version: '1.0.0' },
    },
  });

/** An exchange the client holds open and does not read from. */
interface Unread {
  /** Resolves once the answer's head arrived (so the daemon has written it). */
  readonly answered: Promise<number>;
  /** Whether the connection closed, not by the test (seen only while bytes are still read). */
  cut(): boolean;
  /** Reads the rest at last; resolves whether the answer arrived whole. */
  readAll(): Promise<boolean>;
  /** The test's own end of it. */
  end(): void;
}

function unreadExchange(
  http: HttpDaemon,
  r: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Unread {
  const target = new URL(http.url);
  const req = httpRequest({
    host: target.hostname,
    port: target.port,
    method: r.method,
    path: target.pathname,
    headers: {
      ...r.headers,
      ...(r.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(r.body)) }),
    },
    agent: false,
  });
  let ours = false;
  let cut = false;
  let response: IncomingMessage | undefined;
  req.on('error', () => undefined);
  req.on('close', () => (cut ||= !ours));
  const answered = new Promise<number>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      // Nothing is read: the socket stops taking bytes once node's small buffer is full.
      res.pause();
      res.on('error', () => undefined);
      response = res;
      resolve(res.statusCode ?? 0);
    });
  });
  req.end(r.body);
  return {
    answered,
    cut: () => cut,
    readAll: () =>
      new Promise<boolean>((resolve) => {
        if (!response) return resolve(false);
        const res = response;
        res.once('end', () => resolve(res.complete));
        res.once('close', () => resolve(res.complete));
        res.resume();
      }),
    end: () => {
      ours = true;
      req.destroy();
    },
  };
}

async function stop(daemon: DaemonProcess): Promise<void> {
  daemon.child.kill('SIGTERM');
  await daemon.exited;
}

describe('security: the HTTP endpoint (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('no token or a wrong one: 401 and nothing else', T, async () => {
    const http = await startHttpDaemon(env);
    const post = (headers: Record<string, string>) =>
      rawRequest(http.url, { headers: { ...MCP_POST_HEADERS, ...headers }, body: INITIALIZE });
    const near = `${http.token.slice(0, -1)}${http.token.endsWith('A') ? 'B' : 'A'}`;
    for (const headers of [
      {},
      auth('wrong'),
      auth(near),
      auth(`${http.token}x`),
      { Authorization: `Basic ${http.token}` },
      { Authorization: http.token },
    ]) {
      const answer = await post(headers);
      assert.equal(answer.status, 401, `${JSON.stringify(Object.keys(headers))}: ${answer.body}`);
      assert.match(String(answer.headers['www-authenticate']), /^Bearer/);
      assert.equal(answer.headers['mcp-session-id'], undefined);
      assert.ok(!answer.body.includes(http.token.slice(0, 8)), 'the token is never echoed');
    }
    assert.equal(opened(http.daemon), 0, 'no session opened without the token');
    const ok = await post(auth(http.token));
    assert.equal(ok.status, 200, ok.body);
    assert.equal(typeof ok.headers['mcp-session-id'], 'string');
    assert.equal(opened(http.daemon), 1);
  });

  it('a Host or Origin not of this machine: 403 and nothing else', T, async () => {
    const http = await startHttpDaemon(env);
    const port = new URL(http.url).port;
    const post = (headers: Record<string, string>) =>
      rawRequest(http.url, {
        headers: { ...MCP_POST_HEADERS, ...auth(http.token), ...headers },
        body: INITIALIZE,
      });
    const foreign: Record<string, string>[] = [
      { Host: 'evil.example' },
      { Host: `evil.example:${port}` },
      { Host: `127.0.0.1.evil.example:${port}` },
      { Host: `localhost.evil.example:${port}` },
      { Origin: 'http://evil.example' },
      { Origin: `http://evil.example:${port}` },
      { Origin: 'null' },
    ];
    for (const headers of foreign) {
      const answer = await post(headers);
      assert.equal(answer.status, 403, `${JSON.stringify(headers)}: ${answer.body}`);
      assert.equal(answer.headers['mcp-session-id'], undefined);
    }
    // Refused before the token is even looked at: a page learns nothing by guessing.
    const noToken = await rawRequest(http.url, {
      headers: { ...MCP_POST_HEADERS, Host: 'evil.example' },
      body: INITIALIZE,
    });
    assert.equal(noToken.status, 403);
    assert.equal(opened(http.daemon), 0, 'nothing reached MCP');
    // This machine's own names and origins are served.
    for (const headers of [
      { Host: `localhost:${port}`, Origin: 'http://localhost:3000' },
      { Host: `127.0.0.1:${port}`, Origin: `http://127.0.0.1:${port}` },
    ]) {
      const answer = await post(headers);
      assert.equal(answer.status, 200, `${JSON.stringify(headers)}: ${answer.body}`);
    }
    assert.equal(opened(http.daemon), 2);
  });

  it(
    'a body over the message limit: 413, declared or streamed, and nothing reaches MCP',
    T,
    async () => {
      const limit = 64 * 1024;
      const http = await startHttpDaemon(env, [], { MCPCTL_RPC_LIMITS: `maxLineBytes=${limit}` });
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'x'.repeat(limit), version: '1' },
        },
      });
      for (const chunked of [false, true]) {
        const answer = await rawRequest(http.url, {
          headers: { ...MCP_POST_HEADERS, ...auth(http.token) },
          body: big,
          chunked,
        });
        assert.equal(answer.status, 413, `chunked ${chunked}: ${answer.body}`);
        assert.match(answer.body, /64 KiB message limit/);
      }
      assert.equal(opened(http.daemon), 0);
      // Under the limit the same request is served.
      assert.equal(typeof (await rawInitialize(http)), 'string');
    },
  );

  it('an unknown Mcp-Session-Id gets 404, also the old one after a daemon restart', T, async () => {
    const first = await startHttpDaemon(env);
    const session = await rawInitialize(first);
    const list = await rawRequest(first.url, {
      headers: inSession(first, session),
      body: rpc(2, 'tools/list'),
    });
    assert.equal(list.status, 200, list.body);
    const madeUp = await rawRequest(first.url, {
      headers: inSession(first, '00000000-0000-4000-8000-000000000000'),
      body: rpc(3, 'tools/list'),
    });
    assert.equal(madeUp.status, 404);
    await stop(first.daemon);
    const second = await startHttpDaemon(env);
    const old = await rawRequest(second.url, {
      headers: inSession(second, session),
      body: rpc(4, 'tools/list'),
    });
    assert.equal(old.status, 404, old.body);
    assert.match(old.body, /initialize/);
  });

  it(
    'the token file: 0600 in 0700; a wrong mode or a link in its place stops the daemon and `mcpctl token`',
    T,
    async () => {
      const http = await startHttpDaemon(env);
      const file = tokenFile(env);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
      const printed = await env.cli(['token']);
      assert.equal(printed.code, 0, printed.stderr);
      assert.equal(printed.stdout, `${http.token}\n`);
      await stop(http.daemon);

      const refused = async (what: RegExp) => {
        const daemon = env.spawnDaemon(['daemon', '--workspace', env.workspace, '--http', '0']);
        const { code } = await daemon.exited;
        assert.equal(code, 1, daemon.stderr());
        assert.match(daemon.stderr(), what);
        assert.ok(daemon.stderr().includes(file), 'the message names the file');
        assert.ok(!daemon.stderr().includes(http.token), 'nor shows the token');
        const token = await env.cli(['token']);
        assert.equal(token.code, 1);
        assert.match(token.stderr, what);
        assert.equal(token.stdout, '');
      };
      chmodSync(file, 0o644);
      await refused(/mode 644/);
      chmodSync(file, 0o600);

      // A link in its place, to a private file holding a token someone chose.
      const planted = path.join(env.root, 'planted-token');
      writeFileSync(planted, `${'p'.repeat(43)}\n`, { mode: 0o600 });
      renameSync(file, `${file}.real`);
      symlinkSync(planted, file);
      await refused(/symbolic link/);
      assert.ok(lstatSync(file).isSymbolicLink(), 'the link is left alone');
      assert.equal(readFileSync(planted, 'utf8'), `${'p'.repeat(43)}\n`, 'its target unchanged');
    },
  );

  it('the token appears in no output and no log line', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    const http = await startHttpDaemon(env);
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(httpTransport(http));
    await until(
      'fx__echo to be listed',
      async () => (await client.listTools()).tools.some((t) => t.name === 'fx__echo'),
      { timeoutMs: 30_000 },
    );
    await client.callTool({ name: 'fx__echo', arguments: { text: 'hello' } });
    await rawRequest(http.url, {
      headers: { ...MCP_POST_HEADERS, ...auth(`${http.token}x`) },
      body: INITIALIZE,
    });
    const outputs: string[] = [];
    for (const args of [
      ['get', 'sessions', '-o', 'wide'],
      ['get', 'sessions', '-o', 'json'],
      ['get', 'servers', '-o', 'yaml', '--show-secrets'],
      ['get', 'events', '-o', 'json'],
      ['get', 'connections', '-o', 'json'],
      ['describe', 'server', 'fx'],
    ]) {
      const r = await env.cli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      outputs.push(r.stdout, r.stderr);
    }
    await client.close();
    await stop(http.daemon);
    outputs.push(http.daemon.stderr());
    const half = http.token.slice(0, 20);
    for (const text of outputs)
      assert.ok(!text.includes(half), `the token shows in: ${text.slice(0, 200)}`);
    assert.ok(http.daemon.stderr().includes('http agent session opened'), 'the log was read');
  });

  it(
    'an entry of the endpoint in a file mcpctl reads offers nothing: no loop through itself',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const http = await startHttpDaemon(env);
      // What a Qwen user writes into ~/.qwen/settings.json, which mcpctl reads too.
      env.write(env.userSettingsPath, {
        mcpServers: {
          fx: env.fixture('fx'),
          mcpctl: { httpUrl: http.url, headers: { Authorization: `Bearer ${http.token}` } },
        },
      });
      const servers = await env.untilServers(
        (s) => ['fx', 'mcpctl'].every((n) => condition(s.get(n), 'Ready')?.status === 'True'),
        'fx and the self entry to be Ready',
      );
      assert.deepEqual(servers.get('mcpctl')?.status.tools, [], 'the self entry offers no tool');
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      await client.connect(httpTransport(http));
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names, ['fx__echo']);
      assert.match(http.daemon.stderr(), /"inert":"this is mcpctl's own HTTP endpoint/);
      await client.close();
    },
  );

  it('a non-loopback address needs --http-allow-remote', T, async () => {
    const daemon = env.spawnDaemon(['daemon', '--workspace', env.workspace, '--http', '0.0.0.0:0']);
    const { code } = await daemon.exited;
    assert.equal(code, 2, daemon.stderr());
    assert.match(daemon.stderr(), /not a loopback address.*--http-allow-remote/s);
  });

  it('sessions and open streams are bounded; an idle session expires', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx', ['--tools=sleep']) } });
    const http = await startHttpDaemon(env, [], {
      MCPCTL_HTTP_LIMITS: 'maxSessions=2,maxStreamsPerSession=2,idleSessionMs=1500',
    });
    const a = await rawInitialize(http);
    await rawInitialize(http);

    // Two calls that stay open fill session a's streams; a third exchange is refused.
    await rawRequest(http.url, {
      headers: inSession(http, a),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await until(
      'fx__sleep to be listed',
      async () =>
        (
          await rawRequest(http.url, { headers: inSession(http, a), body: rpc(9, 'tools/list') })
        ).body.includes('fx__sleep'),
      { timeoutMs: 30_000 },
    );
    const sleep = (id: number) =>
      rawRequest(http.url, {
        headers: inSession(http, a),
        body: rpc(id, 'tools/call', { name: 'fx__sleep', arguments: { ms: 3000 } }),
      });
    const calls = [sleep(10), sleep(11)];
    const refused = await until(
      'an exchange over the per-session limit to be refused',
      async () => {
        const r = await rawRequest(http.url, {
          headers: inSession(http, a),
          body: rpc(12, 'ping'),
        });
        return r.status === 503 ? r : undefined;
      },
      { timeoutMs: 2500, intervalMs: 20 },
    );
    assert.match(refused.body, /2 HTTP requests and streams of this session/);
    for (const call of await Promise.all(calls)) assert.equal(call.status, 200);

    // Left alone, both sessions expire (asking with a's id would keep it alive: the log says
    // when), then the old id is 404 and a new session fits.
    await until(
      'both sessions to expire',
      () =>
        http.daemon
          .stderr()
          .split('\n')
          .filter((l) => l.includes('idle for 2 s: closed')).length === 2,
    );
    const gone = await rawRequest(http.url, { headers: inSession(http, a), body: rpc(13, 'ping') });
    assert.equal(gone.status, 404);
    assert.equal(typeof (await rawInitialize(http)), 'string');
    assert.match(http.daemon.stderr(), /idle for 2 s: closed/);
  });

  it(
    'a full session table: the least recently active idle session gives way; all busy, 503',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx', ['--tools=sleep']) } });
      const http = await startHttpDaemon(env, [], { MCPCTL_HTTP_LIMITS: 'maxSessions=2' });
      const ping = (session: string) =>
        rawRequest(http.url, { headers: inSession(http, session), body: rpc(5, 'ping') });
      const evictions = () =>
        http.daemon
          .stderr()
          .split('\n')
          .filter((l) => l.includes('gives its place to a new one'));

      // One client left two sessions open; b was used least recently, so b gives way.
      const a = await rawInitialize(http);
      const b = await rawInitialize(http);
      assert.equal((await ping(a)).status, 200);
      const c = await rawInitialize(http);
      assert.equal((await ping(b)).status, 404, 'b was closed for c');
      assert.equal((await ping(a)).status, 200, 'a stays');
      // The daemon's log is read as it comes: wait for its line rather than race it.
      const first = await until('the eviction to be logged', () => evictions()[0]);
      assert.match(first, new RegExp(`http agent ${b.slice(0, 8)} `));

      // A session holding only its GET stream is idle too (or one client with a stream per
      // session would lock everyone out); the least recently active one gives way.
      const streamHeaders = (session: string) => ({
        ...inSession(http, session),
        Accept: 'text/event-stream',
      });
      const streamA = unreadExchange(http, { method: 'GET', headers: streamHeaders(a) });
      assert.equal(await streamA.answered, 200);
      const streamC = unreadExchange(http, { method: 'GET', headers: streamHeaders(c) });
      assert.equal(await streamC.answered, 200);
      const d = await rawInitialize(http);
      await until('the GET stream of a to end with its session', () => streamA.cut());
      assert.equal((await ping(a)).status, 404);
      assert.equal(streamC.cut(), false, "c's stream stays");
      assert.equal((await ping(c)).status, 200);

      // Both sessions with a call in flight: busy, so a new one is refused, and told when to
      // come back.
      await until(
        'fx__sleep to be listed',
        async () =>
          (
            await rawRequest(http.url, { headers: inSession(http, d), body: rpc(9, 'tools/list') })
          ).body.includes('fx__sleep'),
        { timeoutMs: 30_000 },
      );
      const marker = (s: string) => path.join(env.root, `called-${s}`);
      const sleep = (session: string) =>
        rawRequest(http.url, {
          headers: inSession(http, session),
          body: rpc(10, 'tools/call', {
            name: 'fx__sleep',
            arguments: { ms: 4000, marker: marker(session) },
          }),
        });
      const calls = [sleep(c), sleep(d)];
      await until('both calls to be in flight', () =>
        [c, d].every((s) => {
          try {
            return statSync(marker(s)).isFile();
          } catch {
            return false;
          }
        }),
      );
      const refused = await rawRequest(http.url, {
        headers: { ...MCP_POST_HEADERS, ...auth(http.token) },
        body: INITIALIZE,
      });
      assert.equal(refused.status, 503, refused.body);
      assert.equal(refused.headers['retry-after'], '1');
      assert.match(refused.body, /all 2 MCP sessions .* are busy/);
      for (const call of await Promise.all(calls)) assert.equal(call.status, 200, call.body);
      assert.equal(typeof (await rawInitialize(http)), 'string', 'idle again: room for one more');
      await until('the third eviction to be logged', () => evictions().length === 3);
      assert.equal(evictions().length, 3);
      streamC.end();
    },
  );

  it('a full session table: an initialize refused for its query evicts no one', T, async () => {
    const http = await startHttpDaemon(env, [], { MCPCTL_HTTP_LIMITS: 'maxSessions=2' });
    const ping = (session: string) =>
      rawRequest(http.url, { headers: inSession(http, session), body: rpc(5, 'ping') });
    const a = await rawInitialize(http);
    const b = await rawInitialize(http);
    assert.equal((await ping(a)).status, 200);
    for (const query of ['?metaTools=bogus', '?workspace=relative/path']) {
      const refused = await rawRequest(http.url, {
        path: `/mcp${query}`,
        headers: { ...MCP_POST_HEADERS, ...auth(http.token) },
        body: INITIALIZE,
      });
      assert.equal(refused.status, 400, refused.body);
    }
    assert.equal((await ping(b)).status, 200, 'b keeps its place: nobody took it');
    assert.equal((await ping(a)).status, 200);
    assert.doesNotMatch(http.daemon.stderr(), /gives its place to a new one/);
  });

  it(
    'unread answers are bounded per session and for the daemon; the client that reads least pays',
    T,
    async () => {
      const MiB = 1024 * 1024;
      // Each answer is a little over 8 MiB, twice what the kernel's socket buffers take (so
      // much of it stays in the daemon while unread); two fit a session's (and the daemon's)
      // 20 MiB, three do not.
      const limit = 20 * MiB;
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const http = await startHttpDaemon(env, [], {
        MCPCTL_HTTP_LIMITS: `maxSessionUnreadBytes=${limit},maxUnreadBytes=${limit}`,
      });
      const a = await rawInitialize(http);
      const b = await rawInitialize(http);
      await until(
        'fx__echo to be listed',
        async () =>
          (
            await rawRequest(http.url, { headers: inSession(http, a), body: rpc(2, 'tools/list') })
          ).body.includes('fx__echo'),
        { timeoutMs: 30_000 },
      );
      const text = 'x'.repeat(8 * MiB);
      let id = 10;
      const bigCall = async (session: string): Promise<Unread> => {
        id += 1;
        const call = unreadExchange(http, {
          method: 'POST',
          headers: inSession(http, session),
          body: rpc(id, 'tools/call', { name: 'fx__echo', arguments: { text } }),
        });
        assert.equal(await call.answered, 200);
        return call;
      };
      type Drop = { msg: string; http: string; unread: { session: number; all: number } };
      const drops = () =>
        http.daemon
          .stderr()
          .split('\n')
          .filter((l) => l.includes('"unread":{'))
          .map((l) => JSON.parse(l) as Drop);

      // Session a leaves three answers unread: over its 20 MiB, its largest is dropped.
      const ofA = [await bigCall(a), await bigCall(a), await bigCall(a)];
      const [first] = await until('a drop for session a', () => {
        const seen = drops();
        return seen.length === 1 ? seen : undefined;
      });
      assert.ok(first);
      assert.match(first.msg, /more than the 20 MiB one session may/);
      assert.equal(first.http, a.slice(0, 8));
      assert.equal(
        (await rawRequest(http.url, { headers: inSession(http, a), body: rpc(3, 'ping') })).status,
        200,
        'the session itself goes on',
      );

      // Session b's one answer passes the daemon's 20 MiB: a, which holds the most, pays.
      const ofB = await bigCall(b);
      const second = await until('a drop for the daemon', () => drops()[1]);
      assert.match(second.msg, /more than the daemon's 20 MiB/);
      assert.equal(second.http, a.slice(0, 8));
      for (const { unread } of drops()) {
        assert.ok(unread.session <= limit, `a session holds ${unread.session} after a drop`);
        assert.ok(unread.all <= limit, `all sessions hold ${unread.all} after a drop`);
      }

      // Read at last: the dropped answers are cut short, the others arrive whole.
      const whole = await Promise.all(ofA.map((c) => c.readAll()));
      assert.equal(whole.filter((w) => !w).length, 2, `a's answers whole: ${whole.join(', ')}`);
      assert.equal(await ofB.readAll(), true, "b's answer is kept");
      assert.equal(drops().length, 2);
      for (const c of [...ofA, ofB]) c.end();
    },
  );

  it(
    'a JSON-RPC batch: refused where the protocol has none (2025-06-18 on) and in the initialize POST',
    T,
    async () => {
      const http = await startHttpDaemon(env);
      const batch = JSON.stringify([
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ]);
      const session = async (version: string) => {
        const answer = await rawRequest(http.url, {
          headers: { ...MCP_POST_HEADERS, ...auth(http.token) },
          body: initializeAt(version),
        });
        assert.equal(answer.status, 200, answer.body);
        return String(answer.headers['mcp-session-id']);
      };
      const post = (id: string, version: string, body: string) =>
        rawRequest(http.url, {
          headers: { ...inSession(http, id), 'Mcp-Protocol-Version': version },
          body,
        });
      for (const version of ['2025-06-18', '2025-11-25']) {
        const answer = await post(await session(version), version, batch);
        assert.equal(answer.status, 400, `${version}: ${answer.body}`);
        const error = JSON.parse(answer.body) as {
          id: unknown;
          error: { code: number; message: string };
        };
        assert.equal(error.id, null);
        assert.equal(error.error.code, -32600);
        assert.match(error.error.message, new RegExp(`batch.*${version}`));
        // Saying an older version on the request does not make the session's protocol older.
        const older = await post(await session(version), '2025-03-26', batch);
        assert.equal(older.status, 400, `${version} as 2025-03-26: ${older.body}`);
      }
      // Batches are 2025-03-26's: there they are served.
      const old = await post(await session('2025-03-26'), '2025-03-26', batch);
      assert.equal(old.status, 200, old.body);
      assert.match(old.body, /"result"/);

      // An initialize never comes in a batch (2025-03-26 says so too): no session opens.
      const before = opened(http.daemon);
      const inBatch = await rawRequest(http.url, {
        headers: { ...MCP_POST_HEADERS, ...auth(http.token) },
        body: `[${initializeAt('2025-03-26')}]`,
      });
      assert.equal(inBatch.status, 400, inBatch.body);
      assert.equal(inBatch.headers['mcp-session-id'], undefined);
      const refusal = JSON.parse(inBatch.body) as { error: { code: number; message: string } };
      assert.equal(refusal.error.code, -32600);
      assert.match(refusal.error.message, /initialize.*alone.*batch/);
      assert.equal(opened(http.daemon), before);
    },
  );
});
