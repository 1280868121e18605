/**
 * The session keeper between a scripted agent (stdin/stdout streams) and scripted gateways
 * (connections to a Unix socket server of the test's): what it passes on, answers, replays,
 * renames and drops when a gateway goes away.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { LineReader } from '../rpc/protocol.js';
import { tempDir, type TempDir } from '../../testing/temp-dir.js';
import { until } from '../../testing/until.js';
import { SessionKeeper, type KeeperOptions, type Link } from './keeper.js';

const T = { timeout: 20_000 };
type Json = Record<string, unknown>;

/** One gateway connection, as the test's fake daemon sees it. */
class Gateway {
  readonly got: Json[] = [];
  readonly #reader = new LineReader(1 << 24);
  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const line of this.#reader.push(chunk)) this.got.push(JSON.parse(line) as Json);
    });
  }
  send(message: Json): void {
    this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }
  /** Waits for a message `match` accepts; returns it. */
  async expect(what: string, match: (m: Json) => boolean): Promise<Json> {
    return until(`the gateway to get ${what}`, () => this.got.find(match), { timeoutMs: 5000 });
  }
  methods(): unknown[] {
    return this.got.map((m) => m.method ?? `answer ${JSON.stringify(m.id)}`);
  }
}

interface World {
  keeper: SessionKeeper;
  /** The agent's side of serve's stdin. */
  stdin: PassThrough;
  exited: Promise<number>;
  gateways: Gateway[];
  /** What the agent got, parsed. */
  agentGot: Json[];
  agent(message: Json): void;
  reopens: number;
  logs: string[];
  /** The pid daemonPid() reports (undefined: no daemon answers). */
  pid: number | undefined;
  /** Makes the next reopen fail with this, or hang (null). */
  nextReopen: Error | null | undefined;
  /** The gateway protocol the next links speak (default 2). */
  protocol: number;
  /** Serve's ends of the links, in order. */
  serveSockets: Socket[];
}

describe('SessionKeeper', () => {
  let dir: TempDir;
  let server: Server;
  let socketPath: string;
  const accepted: Socket[] = [];
  let world: World | undefined;

  beforeEach(async () => {
    dir = tempDir('mcpctl-keeper-');
    socketPath = path.join(dir.path, 'g.sock');
    server = createServer((s) => accepted.push(s));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  });
  afterEach(async () => {
    world?.agent({ end: true });
    if (world) await world.exited;
    world = undefined;
    for (const s of accepted.splice(0)) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    dir.remove();
  });

  /** A connection to the fake daemon, as an opened gateway; its daemon side, once accepted. */
  async function link(w: World): Promise<Link> {
    const before = accepted.length;
    const socket = connect(socketPath);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    await until('the connection to be accepted', () => accepted.length > before);
    w.gateways.push(new Gateway(accepted[accepted.length - 1]));
    w.serveSockets.push(socket);
    return { socket, opened: { rest: Buffer.alloc(0), protocol: w.protocol, pid: 1 } };
  }

  async function start(options: Partial<KeeperOptions> = {}, protocol = 2): Promise<World> {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const reader = new LineReader(1 << 24);
    const w: World = {
      keeper: undefined as unknown as SessionKeeper,
      stdin,
      exited: Promise.resolve(0),
      gateways: [],
      agentGot: [],
      agent: (message) => {
        if (message.end) stdin.end();
        else stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
      },
      reopens: 0,
      logs: [],
      pid: undefined,
      nextReopen: undefined,
      protocol,
      serveSockets: [],
    };
    stdout.on('data', (chunk: Buffer) => {
      for (const line of reader.push(chunk)) w.agentGot.push(JSON.parse(line) as Json);
    });
    w.keeper = new SessionKeeper({
      stdin,
      stdout,
      log: (m) => w.logs.push(m),
      socketPath,
      logFile: '/run/mcpctl-daemon.log',
      reopen: () => {
        w.reopens += 1;
        const next = w.nextReopen;
        w.nextReopen = undefined;
        if (next === null) return new Promise<Link>(() => undefined);
        return next ? Promise.reject(next) : link(w);
      },
      daemonPid: () => Promise.resolve(w.pid),
      handleSignals: false,
      ...options,
    });
    w.exited = w.keeper.run(await link(w));
    world = w;
    return w;
  }

  /** The agent's handshake through the first gateway. */
  async function handshake(w: World): Promise<void> {
    const g = w.gateways[0];
    w.agent({
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { roots: {} },
        clientInfo: { name: 'a' },
      },
    });
    await g.expect('initialize', (m) => m.method === 'initialize');
    g.send({ id: 0, result: { protocolVersion: '2025-06-18', capabilities: {} } });
    await until('the agent to get its answer', () => w.agentGot.some((m) => m.id === 0));
    w.agent({ method: 'notifications/initialized' });
    w.agent({ id: 1, method: 'logging/setLevel', params: { level: 'debug' } });
    w.agent({ id: 2, method: 'resources/subscribe', params: { uri: 'a://x' } });
    w.agent({ id: 3, method: 'resources/subscribe', params: { uri: 'a://y' } });
    w.agent({ id: 4, method: 'resources/unsubscribe', params: { uri: 'a://y' } });
    for (const id of [1, 2, 3, 4]) {
      await g.expect(`request ${id}`, (m) => m.id === id);
      g.send({ id, result: {} });
    }
    await until('the answers', () => w.agentGot.some((m) => m.id === 4));
  }

  it(
    'a gateway gone: calls in flight get the error, the session is replayed, waiting calls go on',
    T,
    async () => {
      const w = await start();
      await handshake(w);
      const first = w.gateways[0];
      w.agent({ id: 5, method: 'tools/call', params: { name: 'slow' } });
      await first.expect('the call', (m) => m.id === 5);
      first.socket.destroy(); // The daemon died.
      const error = await until('the error answer', () => w.agentGot.find((m) => m.id === 5));
      assert.equal((error.error as Json).code, -32000);
      assert.match(
        (error.error as Json).message as string,
        /the mcpctl daemon went away while this tools\/call request was in flight .*may or may not have run.*\/run\/mcpctl-daemon\.log/,
      );
      const second = await until('a new gateway', () => w.gateways[1]);
      // Serve's own initialize, with the agent's params; answered to serve only.
      const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
      assert.deepEqual(init.params, {
        protocolVersion: '2025-06-18',
        capabilities: { roots: {} },
        clientInfo: { name: 'a' },
      });
      assert.equal(typeof init.id, 'string');
      w.agent({ id: 6, method: 'tools/list' }); // Arrives while the session is restored.
      second.send({ id: init.id, result: { protocolVersion: '2025-06-18', capabilities: {} } });
      await second.expect('the call that waited', (m) => m.id === 6);
      assert.deepEqual(second.methods(), [
        'initialize',
        'notifications/initialized',
        'logging/setLevel',
        'resources/subscribe',
        'tools/list',
      ]);
      const [level, subscribe] = second.got.slice(2, 4);
      assert.deepEqual(level.params, { level: 'debug' });
      assert.deepEqual(subscribe.params, { uri: 'a://x' });
      second.send({ id: level.id, result: {} });
      second.send({ id: subscribe.id, result: {} });
      second.send({ id: 6, result: { tools: [] } });
      await until('the waiting call answered', () => w.agentGot.some((m) => m.id === 6));
      assert.deepEqual(
        w.agentGot.filter((m) => m.method).map((m) => m.method),
        [
          'notifications/tools/list_changed',
          'notifications/prompts/list_changed',
          'notifications/resources/list_changed',
        ],
      );
      // Nothing of serve's own requests reached the agent.
      assert.deepEqual(
        w.agentGot.filter((m) => m.id !== undefined).map((m) => m.id),
        [0, 1, 2, 3, 4, 5, 6],
      );
      assert.equal(w.reopens, 1);
      assert.match(
        w.logs.join('\n'),
        /went away \(see \/run\/mcpctl-daemon\.log\); bringing one back/,
      );
    },
  );

  it(
    "a gone gateway's questions: their answers are dropped, a new gateway's ids are renamed",
    T,
    async () => {
      const w = await start();
      await handshake(w);
      const first = w.gateways[0];
      first.send({ id: 0, method: 'elicitation/create', params: { message: 'old' } });
      await until('the question', () => w.agentGot.some((m) => m.method === 'elicitation/create'));
      assert.equal(w.agentGot.find((m) => m.method === 'elicitation/create')?.id, 0);
      first.socket.destroy();
      const second = await until('a new gateway', () => w.gateways[1]);
      const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
      second.send({ id: init.id, result: {} });
      await second.expect('the restore', (m) => m.method === 'resources/subscribe');
      // The agent answers the old question late: the new gateway never asked it.
      w.agent({ id: 0, result: { action: 'cancel' } });
      // The new gateway asks with the same id of its own.
      second.send({ id: 0, method: 'elicitation/create', params: { message: 'new' } });
      const asked = await until('the new question', () =>
        w.agentGot.find(
          (m) => m.method === 'elicitation/create' && (m.params as Json).message === 'new',
        ),
      );
      assert.match(String(asked.id), /^mcpctl-2-\d+$/);
      w.agent({ id: asked.id, result: { action: 'accept', content: {} } });
      const answer = await second.expect('the answer', (m) => m.result !== undefined && m.id === 0);
      assert.deepEqual(answer.result, { action: 'accept', content: {} });
      assert.equal(
        second.got.filter((m) => m.id === 0 && m.result !== undefined).length,
        1,
        'the late answer to the old question was dropped',
      );
      // A cancellation of the new question reaches the agent under the id it knows.
      second.send({ id: 1, method: 'roots/list' });
      const roots = await until('roots/list', () =>
        w.agentGot.find((m) => m.method === 'roots/list'),
      );
      second.send({ method: 'notifications/cancelled', params: { requestId: 1 } });
      const cancelled = await until('the cancellation', () =>
        w.agentGot.find((m) => m.method === 'notifications/cancelled'),
      );
      assert.deepEqual(cancelled.params, { requestId: roots.id });
    },
  );

  it('a task created on a gone gateway: serve answers that its state was lost', T, async () => {
    const w = await start();
    await handshake(w);
    const first = w.gateways[0];
    w.agent({ id: 7, method: 'tools/call', params: { name: 't', task: { ttl: 1000 } } });
    await first.expect('the call', (m) => m.id === 7);
    first.send({ id: 7, result: { task: { taskId: 'task-1', status: 'working' } } });
    await until('the task', () => w.agentGot.some((m) => m.id === 7));
    first.socket.destroy();
    const second = await until('a new gateway', () => w.gateways[1]);
    const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
    second.send({ id: init.id, result: {} });
    w.agent({ id: 8, method: 'tasks/get', params: { taskId: 'task-1' } });
    w.agent({ id: 9, method: 'tasks/get', params: { taskId: 'task-2' } });
    const lost = await until('the answer', () => w.agentGot.find((m) => m.id === 8));
    assert.equal((lost.error as Json).code, -32602);
    assert.match(
      (lost.error as Json).message as string,
      /task "task-1" was lost: the mcpctl daemon restarted/,
    );
    // A task serve never saw is the gateway's to answer.
    await second.expect('the other task', (m) => m.id === 9);
    assert.ok(!second.got.some((m) => m.id === 8));
  });

  it(
    'an initialize in flight when the gateway goes: sent again, answered by the new one',
    T,
    async () => {
      const w = await start();
      w.agent({ id: 0, method: 'initialize', params: { protocolVersion: 'x', capabilities: {} } });
      await w.gateways[0].expect('initialize', (m) => m.method === 'initialize');
      w.gateways[0].socket.destroy();
      const second = await until('a new gateway', () => w.gateways[1]);
      const init = await second.expect('initialize again', (m) => m.method === 'initialize');
      assert.equal(init.id, 0, "the agent's own request");
      second.send({ id: 0, result: { protocolVersion: 'x' } });
      const answer = await until('the answer', () => w.agentGot.find((m) => m.id === 0));
      assert.deepEqual(answer.result, { protocolVersion: 'x' });
      assert.ok(
        !w.agentGot.some((m) => m.method),
        'no list_changed: the agent was not initialized',
      );
    },
  );

  it('no daemon in time: a waiting request gets an error naming the log', T, async () => {
    const w = await start({ waitMs: 50 });
    await handshake(w);
    w.nextReopen = null; // The daemon does not come back.
    w.gateways[0].socket.destroy();
    await until('the reopen', () => w.reopens === 1);
    w.agent({ id: 5, method: 'tools/list' });
    const late = await until('the answer', () => w.agentGot.find((m) => m.id === 5));
    assert.match(
      (late.error as Json).message as string,
      /did not come back within 0.05 s .*see its log \/run\/mcpctl-daemon\.log/,
    );
    // Nothing comes back: a new keeper whose reopen fails.
  });

  it(
    'a failed return: waiting requests get its reason, and the next request tries again',
    T,
    async () => {
      const w = await start();
      await handshake(w);
      const refusal = new Error('the daemon of another version: run `mcpctl stop`');
      w.nextReopen = refusal;
      w.gateways[0].socket.destroy();
      await until('the failed return', () => w.logs.some((l) => l.includes('another version')));
      w.nextReopen = refusal; // And again for the next request.
      w.agent({ id: 5, method: 'tools/list' });
      const failed = await until('the answer', () => w.agentGot.find((m) => m.id === 5));
      assert.match(
        (failed.error as Json).message as string,
        /could not bring its daemon back: the daemon of another version: run `mcpctl stop`/,
      );
      w.agent({ id: 6, method: 'tools/list' });
      const second = await until('a new gateway', () => w.gateways[1]);
      const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
      second.send({ id: init.id, result: {} });
      await second.expect('the request', (m) => m.id === 6);
      assert.equal(w.reopens, 3);
    },
  );

  it('a stop notice: nothing comes back until the next request', T, async () => {
    const w = await start();
    await handshake(w);
    w.gateways[0].send({
      method: 'mcpctl/daemonStopping',
      params: { reconnect: 'on-demand', reason: 'mcpctl stop' },
    });
    w.gateways[0].socket.end();
    await until('serve to say so', () =>
      w.logs.some((l) => /stopped \(mcpctl stop\); this agent's session waits/.test(l)),
    );
    assert.equal(w.reopens, 0);
    assert.ok(
      !w.agentGot.some((m) => m.method === 'mcpctl/daemonStopping'),
      'the notice is serve’s',
    );
    w.agent({ id: 5, method: 'ping' });
    const second = await until('a new gateway', () => w.gateways[1]);
    const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
    second.send({ id: init.id, result: {} });
    await second.expect('the ping', (m) => m.id === 5);
  });

  it(
    'a gateway that does not read: the agent is not read either, until that gateway is gone',
    T,
    async () => {
      const w = await start();
      await handshake(w);
      const { stdin } = w;
      w.gateways[0].socket.pause(); // The daemon takes nothing more.
      const big = 'x'.repeat(1 << 20);
      let id = 100;
      await until('serve to stop reading the agent', () => {
        w.agent({
          id: (id += 1),
          method: 'tools/call',
          params: { name: 'echo', arguments: { big } },
        });
        return stdin.isPaused();
      });
      w.gateways[0].socket.destroy();
      await until('serve to read the agent again', () => !stdin.isPaused());
      const second = await until('a new gateway', () => w.gateways[1]);
      const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
      second.send({ id: init.id, result: {} });
      w.agent({ id: 1000, method: 'ping' });
      await second.expect('the ping', (m) => m.id === 1000);
    },
  );

  it('the same daemon ends the connection: serve exits 1', T, async () => {
    const w = await start();
    w.pid = 1; // The daemon that opened the gateway still answers.
    w.gateways[0].socket.end();
    assert.equal(await w.exited, 1);
    assert.match(w.logs.join('\n'), /ended this connection/);
    assert.equal(w.reopens, 0);
  });

  it(
    'a line longer than the agent reads: an answer is its size error, the rest is dropped',
    T,
    async () => {
      const w = await start();
      await handshake(w);
      const g = w.gateways[0];
      const tenMiB = 'x'.repeat(10 * 1024 * 1024);
      w.agent({ id: 5, method: 'tools/call', params: { name: 'big' } });
      await g.expect('the call', (m) => m.id === 5);
      g.send({ result: { content: [{ type: 'text', text: tenMiB }] }, id: 5 });
      g.send({ method: 'notifications/message', params: { data: tenMiB } });
      g.send({ id: 'ask-1', method: 'sampling/createMessage', params: { data: tenMiB } });
      // Longer than serve holds at all (no daemon sends one): dropped as it streams.
      g.socket.write(`{"jsonrpc":"2.0","method":"x","params":"${'y'.repeat(17 * 1024 * 1024)}"}\n`);
      g.send({ method: 'notifications/message', params: { data: 'small' } });
      const small = await until('the small notification', () =>
        w.agentGot.find((m) => (m.params as Json | undefined)?.data === 'small'),
      );
      assert.ok(small);
      const answer = w.agentGot.find((m) => m.id === 5);
      assert.deepEqual(answer?.error, {
        code: -32005,
        message:
          'the answer to this request is 10.0 MiB, over the 9 MiB message limit; mcpctl dropped it: ask for less at a time',
      });
      assert.deepEqual(
        w.agentGot
          .filter((m) => m.id !== undefined || m.method !== undefined)
          .map((m) => m.id ?? m.method),
        [0, 1, 2, 3, 4, 5, 'notifications/message'],
        'nothing else reached the agent',
      );
      // The gateway's question got the error instead of waiting for an answer.
      const refused = await g.expect('the refusal', (m) => m.id === 'ask-1');
      assert.equal((refused.error as Json).code, -32005);
      assert.match(
        w.logs.join('\n'),
        /not passed to the agent: notifications\/message of 10\.0 MiB, over the 9 MiB message limit/,
      );
      assert.match(w.logs.join('\n'), /a line of the daemon's longer than 16777216 bytes/);
      // The session goes on.
      w.agent({ id: 6, method: 'ping' });
      await g.expect('the ping', (m) => m.id === 6);
    },
  );

  it(
    'a reset after the last request written: that request waits for the next daemon; the one before fails',
    T,
    async () => {
      const w = await start();
      await handshake(w);
      const first = w.gateways[0];
      w.agent({ id: 5, method: 'tools/call', params: { name: 'read' } });
      await first.expect('the call', (m) => m.id === 5);
      w.agent({ id: 6, method: 'tools/call', params: { name: 'never read' } });
      await first.expect('the second call', (m) => m.id === 6);
      // The daemon closed with bytes of ours unread: Linux resets serve's end (the unit test
      // stands in for the kernel here; e2e/serve-restart.test.ts kills a real daemon).
      const reset = Object.assign(new Error('read ECONNRESET'), {
        code: 'ECONNRESET',
        syscall: 'read',
      });
      w.serveSockets[0]?.destroy(reset);
      const error = await until('the error answer', () => w.agentGot.find((m) => m.id === 5));
      assert.match(
        (error.error as Json).message as string,
        /went away while this tools\/call request was in flight .*may or may not have run/,
      );
      const second = await until('a new gateway', () => w.gateways[1]);
      const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
      second.send({ id: init.id, result: {} });
      const again = await second.expect('the last request, never read', (m) => m.id === 6);
      assert.deepEqual(again.params, { name: 'never read' });
      second.send({ id: 6, result: { content: [] } });
      const answer = await until('its answer', () => w.agentGot.find((m) => m.id === 6));
      assert.deepEqual(answer.result, { content: [] });
      assert.ok(!second.got.some((m) => m.id === 5), 'the one that may have run is not sent again');
      assert.match(
        w.logs.join('\n'),
        /went away before it took 1 request of this agent's; it waits/,
      );
    },
  );

  it(
    'a plain end proves nothing: the last request fails as may or may not have run',
    T,
    async () => {
      const w = await start();
      await handshake(w);
      const first = w.gateways[0];
      w.agent({ id: 7, method: 'tools/call', params: { name: 'read' } });
      await first.expect('the call', (m) => m.id === 7);
      first.socket.end();
      const error = await until('the error answer', () => w.agentGot.find((m) => m.id === 7));
      assert.match((error.error as Json).message as string, /may or may not have run/);
      const second = await until('a new gateway', () => w.gateways[1]);
      const init = await second.expect('the replayed initialize', (m) => m.method === 'initialize');
      second.send({ id: init.id, result: {} });
      w.agent({ id: 8, method: 'ping' });
      await second.expect('the next request', (m) => m.id === 8);
      assert.ok(!second.got.some((m) => m.id === 7), 'never sent twice');
    },
  );
});
