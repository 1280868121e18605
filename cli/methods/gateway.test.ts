/**
 * `gateway.open` and the MCP that follows it on the same connection, in one process: an SDK
 * Client ↔ Unix socket ↔ RpcServer (the daemon's method and handover tables) ↔ the gateway ↔
 * a real Daemon whose pool connects in-memory MCP servers. Files and the watcher are real.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Daemon } from '../../controller/daemon.js';
import { createPool } from '../../pool/index.js';
import { inMemoryConnector } from '../../pool/testing/in-memory.js';
import { connectClient } from '../rpc/client.js';
import type { RpcLimits } from '../rpc/limits.js';
import { LineReader, RpcCodes } from '../rpc/protocol.js';
import { RpcServer } from '../rpc/server.js';
import { StopNotices } from '../rpc/stop-notices.js';
import { openGatewayClient, rawConnect, readLine } from '../testing/gateway-client.js';
import { until } from '../../testing/until.js';
import { handoverTable, mapDomainError, methodTable } from './index.js';
import { tempDir } from '../../testing/temp-dir.js';
import { textOf } from '../../testing/tool-results.js';

const T = { timeout: 30_000 };

/** What the in-memory `wait` tool saw: it runs until its call is cancelled. */
const waitTool = { started: 0, aborted: 0 };

function memServer(tools: readonly string[]): McpServer {
  const s = new McpServer({ name: 'mem', version: '1.0.0' });
  for (const t of tools) {
    if (t === 'wait') {
      s.registerTool('wait', { description: 'waits until cancelled' }, async (extra) => {
        waitTool.started += 1;
        await new Promise<void>((resolve) =>
          extra.signal.addEventListener('abort', () => resolve()),
        );
        waitTool.aborted += 1;
        return { content: [{ type: 'text', text: 'cancelled' }] };
      });
      continue;
    }
    if (t === 'repeat') {
      s.registerTool(
        'repeat',
        { description: 'text, times times', inputSchema: { text: z.string(), times: z.number() } },
        ({ text, times }) => ({ content: [{ type: 'text', text: text.repeat(times) }] }),
      );
      continue;
    }
    s.registerTool(
      t,
      { description: `tool ${t}`, inputSchema: { text: z.string() } },
      ({ text }) => ({ content: [{ type: 'text', text: `${t}:${text}` }] }),
    );
  }
  return s;
}

interface World {
  root: string;
  /** Deletes `root` and all it holds. */
  remove(): void;
  home: string;
  ws: string;
  daemon: Daemon;
  rpc: RpcServer;
  socket: string;
  logged: string[];
  stopNotices: StopNotices;
  writeUser(content: unknown): void;
}

async function world(limits: Partial<RpcLimits> = {}): Promise<World> {
  const { path: root, remove } = tempDir('mcpctl-gw-');
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  mkdirSync(path.join(home, '.qwen'), { recursive: true });
  mkdirSync(ws, { recursive: true });
  const mem = inMemoryConnector((ticket) => memServer(ticket.config.args ?? []));
  const daemon = await Daemon.start({
    workspace: ws,
    home,
    systemSettingsPath: path.join(root, 'system.json'),
    env: { MCPCTL_APPROVALS_PATH: path.join(root, 'approvals.json') },
    stateFile: path.join(root, 'children.json'),
    pool: createPool({ connector: mem.connector, drainDelayMs: 0 }),
    debounceMs: 60,
  });
  const socket = path.join(root, 'd.sock');
  const logged: string[] = [];
  const stopNotices = new StopNotices();
  const ctx = {
    daemon,
    socketPath: socket,
    version: '0.0.0-test',
    requestStop: () => undefined,
    stopNotices,
    log: (message: string) => logged.push(message),
  };
  const rpc = new RpcServer({
    methods: methodTable(ctx),
    handovers: handoverTable(ctx),
    mapError: mapDomainError,
    limits,
  });
  await rpc.listen(socket);
  return {
    root,
    remove,
    home,
    ws,
    daemon,
    rpc,
    socket,
    logged,
    stopNotices,
    writeUser(content) {
      writeFileSync(path.join(home, '.qwen', 'settings.json'), JSON.stringify(content));
    },
  };
}

interface Agent {
  client: Client;
  sessionId: string;
  socket: Socket;
  listChanged: number;
}

async function agent(w: World, params: Record<string, unknown> = {}): Promise<Agent> {
  const opened = await openGatewayClient(w.socket, { workspace: w.ws, ...params });
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { capabilities: {} });
  const state: Agent = {
    client,
    sessionId: opened.sessionId,
    socket: opened.transport.socket,
    listChanged: 0,
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    state.listChanged += 1;
  });
  await client.connect(opened.transport);
  return state;
}

/** A raw connection's answers, parsed, as they come. */
function answers(socket: Socket): { lines: Array<Record<string, unknown>>; closed: () => boolean } {
  const reader = new LineReader();
  const lines: Array<Record<string, unknown>> = [];
  let closed = false;
  socket.on('data', (c: Buffer) =>
    lines.push(...reader.push(c).map((l) => JSON.parse(l) as Record<string, unknown>)),
  );
  socket.on('close', () => (closed = true));
  return { lines, closed: () => closed };
}

const errorOf = (line: Record<string, unknown> | undefined) =>
  line?.error as { code: number; message: string } | undefined;

const OPEN = (id: number, params: object) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'gateway.open', params })}\n`;
const INIT = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
})}\n`;

describe('gateway.open: an agent connection carries MCP to its gateway', T, () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });
  afterEach(async () => {
    await w.rpc.close();
    await w.daemon.stop();
    w.remove();
  });

  it('lists, calls and hears list_changed over the socket', T, async () => {
    w.writeUser({ mcpServers: { fs: { command: 'mem', args: ['read'] } } });
    await w.daemon.defaultSession.reload();
    const a = await agent(w);
    try {
      assert.equal(a.sessionId, w.daemon.defaultSession.id);
      assert.deepEqual(
        (await a.client.listTools()).tools.map((t) => t.name),
        ['fs__read'],
      );
      assert.equal(
        textOf(await a.client.callTool({ name: 'fs__read', arguments: { text: 'hi' } })),
        'read:hi',
      );
      w.writeUser({
        mcpServers: { fs: { command: 'mem', args: ['read'] }, b: { command: 'mem', args: ['y'] } },
      });
      await until('list_changed', () => a.listChanged > 0);
      assert.deepEqual((await a.client.listTools()).tools.map((t) => t.name).sort(), [
        'b__y',
        'fs__read',
      ]);
    } finally {
      await a.client.close();
    }
  });

  it('the agent cancelling a call reaches the server; the connection goes on', T, async () => {
    w.writeUser({ mcpServers: { slow: { command: 'mem', args: ['wait'] } } });
    await w.daemon.defaultSession.reload();
    const a = await agent(w);
    try {
      const before = { ...waitTool };
      const controller = new AbortController();
      const call = a.client.callTool({ name: 'slow__wait', arguments: {} }, undefined, {
        signal: controller.signal,
      });
      const settled = call.then(
        () => 'resolved',
        () => 'rejected',
      );
      await until('the tool to start', () => waitTool.started > before.started);
      controller.abort();
      assert.equal(await settled, 'rejected');
      await until('the server-side abort', () => waitTool.aborted > before.aborted);
      assert.equal((await a.client.listTools()).tools[0]?.name, 'slow__wait');
    } finally {
      await a.client.close();
    }
  });

  it('a hang-up aborts the agent’s calls and releases its session', T, async () => {
    const other = path.join(w.root, 'other');
    mkdirSync(other);
    w.writeUser({ mcpServers: { slow: { command: 'mem', args: ['wait'] } } });
    await w.daemon.defaultSession.reload();
    const a = await agent(w, { workspace: other });
    const session = w.daemon.session(a.sessionId);
    assert.ok(session, 'the session is open while the agent is connected');
    assert.notEqual(a.sessionId, w.daemon.defaultSession.id);
    await session.settled();
    const before = { ...waitTool };
    const call = a.client.callTool({ name: 'slow__wait', arguments: {} }).then(
      (r) => JSON.stringify(r),
      () => 'gone',
    );
    await until('the tool to start', async () => {
      const early = await Promise.race([call, Promise.resolve(undefined)]);
      if (early !== undefined) throw new Error(`the call ended: ${early}`);
      return waitTool.started > before.started;
    });
    a.socket.destroy();
    assert.equal(await call, 'gone');
    await until('the server-side abort', () => waitTool.aborted > before.aborted);
    await until('the session to close', () => w.daemon.session(a.sessionId) === undefined);
  });

  it(
    'a server→agent request (approval by elicitation) crosses the socket both ways',
    T,
    async () => {
      writeFileSync(
        path.join(w.ws, '.mcp.json'),
        JSON.stringify({ mcpServers: { p: { command: 'mem', args: ['t'] } } }),
      );
      await w.daemon.defaultSession.reload();
      assert.equal(w.daemon.defaultSession.kind('McpServer').why('p').reason, 'PendingApproval');
      const opened = await openGatewayClient(w.socket, { workspace: w.ws });
      const client = new Client(
        { name: 'test-agent', version: '1.0.0' },
        { capabilities: { elicitation: {} } },
      );
      const asked: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return { action: 'accept' as const, content: { decision: 'approve-session' } };
      });
      await client.connect(opened.transport);
      try {
        await until('p tools', async () =>
          (await client.listTools()).tools.some((t) => t.name === 'p__t'),
        );
        assert.equal(asked.length, 1);
        assert.match(asked[0] ?? '', /MCP server "p"/);
      } finally {
        await client.close();
      }
    },
  );

  /** A raw gateway.open with `params`: its result, then every line the daemon sends after it. */
  const open = async (params: Record<string, unknown>) => {
    const socket = await rawConnect(w.socket);
    const answer = readLine(socket);
    const request = { jsonrpc: '2.0', id: 1, method: 'gateway.open', params };
    socket.write(`${JSON.stringify(request)}\n`);
    const { line } = await answer;
    const lines: string[] = [];
    const reader = new LineReader(1 << 20);
    socket.on('data', (chunk: Buffer) => lines.push(...reader.push(chunk)));
    socket.resume();
    return { socket, result: (JSON.parse(line ?? '{}') as { result?: unknown }).result, lines };
  };

  it('MCP lines that came with the gateway.open line are served after its answer', T, async () => {
    const socket = await rawConnect(w.socket);
    const got = answers(socket);
    try {
      socket.write(OPEN(7, { workspace: w.ws }) + INIT);
      await until('two answers', () => got.lines.length >= 2);
      assert.deepEqual(got.lines[0], {
        jsonrpc: '2.0',
        id: 7,
        result: { sessionId: w.daemon.defaultSession.id },
      });
      assert.equal(got.lines[1]?.id, 1);
      assert.ok((got.lines[1]?.result as { serverInfo?: unknown }).serverInfo);
    } finally {
      socket.destroy();
    }
  });

  it(
    'the gateway protocol: the answer says which both speak; a stop is announced to 2',
    T,
    async () => {
      const daemon = { pid: process.pid, version: '0.0.0-test' };
      const v2 = await open({ workspace: w.ws, protocol: 2 });
      const future = await open({ workspace: w.ws, protocol: 7 });
      const v1 = await open({ workspace: w.ws });
      try {
        assert.deepEqual(v2.result, { sessionId: 'default', protocol: 2, ...daemon });
        assert.deepEqual(future.result, { sessionId: 'default', protocol: 2, ...daemon });
        assert.deepEqual(v1.result, { sessionId: 'default' }, 'protocol 1 gets what it knows');
        await w.stopNotices.announce({ reconnect: 'now', reason: 'mcpctl restart' });
        const notice = {
          jsonrpc: '2.0',
          method: 'mcpctl/daemonStopping',
          params: { reconnect: 'now', reason: 'mcpctl restart' },
        };
        for (const c of [v2, future])
          assert.deepEqual(JSON.parse(await until('the notice', () => c.lines[0])), notice);
        assert.deepEqual(v1.lines, [], 'protocol 1 knows no notice');
      } finally {
        for (const c of [v2, future, v1]) c.socket.destroy();
      }
    },
  );

  it(
    'a refused gateway.open is answered, then the connection closes, holding nothing',
    T,
    async () => {
      const socket = await rawConnect(w.socket);
      const got = answers(socket);
      socket.write(OPEN(1, { workspace: 'relative/ws' }) + INIT);
      await until('the connection to close', () => got.closed());
      assert.equal(got.lines.length, 1, 'nothing after the refusal');
      assert.equal(errorOf(got.lines[0])?.code, RpcCodes.InvalidParams);
      assert.match(errorOf(got.lines[0])?.message ?? '', /must be absolute paths/);
      assert.equal(w.daemon.sessions().length, 1, 'only the default session');

      const missing = await rawConnect(w.socket);
      const gone = answers(missing);
      missing.write(OPEN(2, { workspace: path.join(w.root, 'nope') }));
      await until('the connection to close', () => gone.closed());
      assert.equal(errorOf(gone.lines[0])?.code, RpcCodes.Failed);
      assert.equal(gone.lines[0]?.id, 2);
    },
  );

  it(
    'gateway.open is the first line only; methods after it are MCP, not the daemon’s',
    T,
    async () => {
      // Not first: an error, and the connection stays a daemon connection.
      const rpc = await connectClient(w.socket);
      try {
        await rpc.call('sessions.list');
        await assert.rejects(rpc.call('gateway.open', { workspace: w.ws }), (e: Error) =>
          /valid only alone, as the first line of a new connection/.test(e.message),
        );
        const listed = await rpc.call<Record<string, string>>('rpc.methods');
        assert.ok(listed['gateway.open'], 'rpc.methods lists gateway.open');
        assert.deepEqual(
          Object.keys(listed).filter((m) => m.startsWith('serve.')),
          [],
          'the serve.* methods are gone',
        );
      } finally {
        await rpc.close();
      }

      const socket = await rawConnect(w.socket);
      const got = answers(socket);
      socket.write(OPEN(1, { workspace: w.ws }));
      await until('the answer', () => got.lines.length >= 1);
      // A daemon method is just an unknown MCP method now.
      socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'sessions.list' })}\n`);
      await until('its answer', () => got.lines.length >= 2);
      assert.equal(got.lines[1]?.id, 2);
      assert.equal(errorOf(got.lines[1])?.code, -32601);
      // Garbage is answered, and the connection goes on.
      socket.write('not json\n[1,2]\n');
      await until('two errors', () => got.lines.length >= 4);
      assert.equal(errorOf(got.lines[2])?.code, RpcCodes.ParseError);
      assert.match(errorOf(got.lines[3])?.message ?? '', /a batch: MCP takes one message per line/);
      // A second gateway.open: a clear error, and the connection ends.
      socket.write(OPEN(3, { workspace: w.ws }));
      await until('the connection to close', () => got.closed());
      assert.equal(got.lines[4]?.id, 3);
      assert.match(
        errorOf(got.lines[4])?.message ?? '',
        /first line of this connection, which carries MCP/,
      );
    },
  );
});

describe('gateway connections under the socket limits', T, () => {
  let w: World;
  afterEach(async () => {
    await w.rpc.close();
    await w.daemon.stop();
    w.remove();
  });

  it(
    'requests past maxRequestsInFlight are refused one by one; the rest are served',
    T,
    async () => {
      w = await world({ maxRequestsInFlight: 3 });
      w.writeUser({ mcpServers: { slow: { command: 'mem', args: ['wait'] } } });
      await w.daemon.defaultSession.reload();
      const socket = await rawConnect(w.socket);
      const got = answers(socket);
      try {
        socket.write(OPEN(1, { workspace: w.ws }) + INIT);
        await until('initialize', () => got.lines.length >= 2);
        socket.write(
          `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
        );
        const call = (id: number) =>
          `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow__wait', arguments: {} } })}\n`;
        socket.write(call(10) + call(11) + call(12) + call(13));
        await until('the refusal', () => got.lines.length >= 3);
        assert.equal(got.lines[2]?.id, 13);
        assert.equal(errorOf(got.lines[2])?.code, RpcCodes.LimitExceeded);
        assert.match(errorOf(got.lines[2])?.message ?? '', /3 requests of this agent are waiting/);
        // Cancelling one frees its place.
        socket.write(
          `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10 } })}\n`,
        );
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 14, method: 'ping' })}\n`);
        await until('the ping', () => got.lines.some((l) => l.id === 14));
        assert.deepEqual(
          got.lines.find((l) => l.id === 14),
          { jsonrpc: '2.0', id: 14, result: {} },
        );
        assert.equal(got.closed(), false);
      } finally {
        socket.destroy();
      }
    },
  );

  it(
    'an MCP line past the line limit ends that connection with an error; others go on',
    T,
    async () => {
      w = await world({ maxLineBytes: 4096 });
      const a = await agent(w);
      const socket = await rawConnect(w.socket);
      const got = answers(socket);
      socket.write(OPEN(1, { workspace: w.ws }));
      await until('the answer', () => got.lines.length >= 1);
      socket.write(
        `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"${'x'.repeat(5000)}"}}\n`,
      );
      await until('the connection to close', () => got.closed());
      assert.equal(got.lines[1]?.id, null);
      assert.match(errorOf(got.lines[1])?.message ?? '', /longer than 4096 bytes/);
      assert.deepEqual(await a.client.ping(), {});
      await a.client.close();
    },
  );

  it(
    'an MCP answer past the line limit fails that request only; the agent goes on',
    T,
    async () => {
      w = await world({ maxLineBytes: 4096 });
      w.writeUser({ mcpServers: { big: { command: 'mem', args: ['repeat'] } } });
      await w.daemon.defaultSession.reload();
      const a = await agent(w);
      const repeat = (times: number) =>
        a.client.callTool({ name: 'big__repeat', arguments: { text: 'x', times } });
      await assert.rejects(repeat(5000), (err: { code?: number; message?: string }) => {
        assert.equal(err.code, RpcCodes.LimitExceeded);
        assert.match(
          err.message ?? '',
          /the answer to this request is \d\.\d KiB, over the 4 KiB message limit/,
        );
        return true;
      });
      assert.equal(textOf(await repeat(3)), 'xxx');
      assert.deepEqual(await a.client.ping(), {});
      await a.client.close();
    },
  );

  it(
    "an MCP answer under the line limit but over what an agent's stdio reads fails that request",
    T,
    async () => {
      w = await world();
      w.writeUser({ mcpServers: { big: { command: 'mem', args: ['repeat'] } } });
      await w.daemon.defaultSession.reload();
      const a = await agent(w);
      const repeat = (times: number) =>
        a.client.callTool({ name: 'big__repeat', arguments: { text: 'x', times } });
      // 10 MiB: within the 16 MiB of a message, past the 9 MiB an agent's MCP SDK reads.
      await assert.rejects(repeat(10 * 1024 * 1024), (err: { code?: number; message?: string }) => {
        assert.equal(err.code, RpcCodes.LimitExceeded);
        assert.match(
          err.message ?? '',
          /the answer to this request is 10\.0 MiB, over the 9 MiB message limit/,
        );
        return true;
      });
      assert.equal(textOf(await repeat(3)), 'xxx');
      await a.client.close();
    },
  );

  it('a stalled unfinished gateway.open line is timed out', T, async () => {
    w = await world({ idleFrameMs: 200 });
    const socket = await rawConnect(w.socket);
    const got = answers(socket);
    socket.write('{"jsonrpc":"2.0","id":1,"method":"gateway.open","params":{');
    await until('the connection to close', () => got.closed());
    assert.equal(errorOf(got.lines[0])?.code, RpcCodes.LimitExceeded);
    assert.match(errorOf(got.lines[0])?.message ?? '', /no new byte for 200 ms/);
  });

  it(
    'an agent that does not read is not read from until it reads again; others go on',
    T,
    async () => {
      w = await world();
      const socket = await rawConnect(w.socket);
      socket.write(OPEN(1, { workspace: w.ws }) + INIT);
      const answer = await readLine(socket); // Then nothing is read for a while.
      assert.ok(answer.line?.includes('sessionId'));
      const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
      let sent = 0;
      // The daemon stops reading: what this agent writes piles up on its own side.
      await until('the daemon to stop reading', () => {
        if (socket.writableLength < 4 * 1024 * 1024)
          socket.write(Array.from({ length: 2000 }, () => ping(1000 + sent++)).join(''));
        return socket.writableLength > 1024 * 1024;
      });
      const other = await agent(w);
      assert.deepEqual(await other.client.ping(), {});
      await other.client.close();
      // Reading again, the agent gets every answer: nothing was lost, only paced.
      const reader = new LineReader();
      const ids = new Set<unknown>();
      socket.on('data', (c: Buffer) => {
        for (const l of reader.push(c)) ids.add((JSON.parse(l) as { id: unknown }).id);
      });
      socket.resume();
      await until(`${sent} answers`, () => ids.has(1000 + sent - 1) && ids.size >= sent);
      socket.destroy();
    },
  );

  it('answers past the unread-output limit cut the agent off, logged', T, async () => {
    w = await world({ maxPendingWriteBytes: 64 * 1024 });
    w.writeUser({ mcpServers: { big: { command: 'mem', args: ['big'] } } });
    await w.daemon.defaultSession.reload();
    const socket = await rawConnect(w.socket);
    socket.write(OPEN(1, { workspace: w.ws }) + INIT);
    const answer = await readLine(socket); // Then nothing is read any more.
    assert.ok(answer.line?.includes('sessionId'));
    let closed = false;
    socket.on('close', () => (closed = true));
    const call = (id: number) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big__big', arguments: { text: 'x'.repeat(400_000) } } })}\n`;
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    socket.write(call(2) + call(3));
    await until('the connection to end', () => closed);
    assert.ok(
      w.logged.some((l) => /left more than 65536 bytes of MCP messages unread/.test(l)),
      w.logged.join('\n'),
    );
    const a = await agent(w);
    assert.deepEqual(await a.client.ping(), {});
    await a.client.close();
  });
});
