/**
 * Attacks on the agent connections of the built daemon (issue 14: `gateway.open`, then MCP on
 * the same socket), by a careless or hostile local client speaking raw bytes, while a real
 * agent (`mcpctl serve` with the SDK client) works in another session.
 *
 * What must hold: a bad first line, a huge or stalled one, a second `gateway.open`, or a flood
 * of MCP lines costs that connection alone, with a clear error it can read; the daemon, its
 * servers and the other agent's session go on; nothing the attacker opened stays open.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionList } from '../cli/objects.js';
import { LineReader } from '../cli/rpc/protocol.js';
import { rawConnect } from '../cli/testing/gateway-client.js';
import { TestEnv, isAlive } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

interface Raw {
  readonly socket: Socket;
  readonly lines: Array<{
    id?: unknown;
    result?: unknown;
    error?: { code: number; message: string };
  }>;
  isClosed(): boolean;
}

async function raw(socketPath: string): Promise<Raw> {
  const socket = await rawConnect(socketPath);
  const reader = new LineReader(64 * 1024 * 1024);
  const lines: Raw['lines'] = [];
  let closed = false;
  socket.on('data', (c: Buffer) =>
    lines.push(...reader.push(c).map((l) => JSON.parse(l) as never)),
  );
  socket.on('close', () => (closed = true));
  return { socket, lines, isClosed: () => closed };
}

const line = (message: object) => `${JSON.stringify(message)}\n`;
const open = (id: number, params: object) =>
  line({ jsonrpc: '2.0', id, method: 'gateway.open', params });
const initialize = line({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});

/** The honest agent: `mcpctl serve` for its own folder, with the SDK client. */
async function honestAgent(env: TestEnv): Promise<{ client: Client; echo(): Promise<string> }> {
  const folder = path.join(env.root, 'honest');
  mkdirSync(folder, { recursive: true });
  const { transport } = env.serveTransport({ workspace: folder });
  const client = new Client({ name: 'honest', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  await until("the honest agent's tools", async () =>
    (await client.listTools()).tools.some((t) => t.name === 'fx__echo'),
  );
  return {
    client,
    async echo() {
      const r = (await client.callTool({
        name: 'fx__echo',
        arguments: { n: 1 },
      })) as CallToolResult;
      return (r.content[0] as { text: string }).text;
    },
  };
}

const workspaces = async (env: TestEnv) =>
  (await env.json<SessionList>(['get', 'sessions', '-o', 'json'])).items.map(
    (s) => s.spec.workspace,
  );

describe('agent connections under attack (e2e)', T, () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx', ['--tools=echo,sleep']) },
    });
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'bad first lines: garbage, huge, stalled, a second gateway.open — that connection alone',
    T,
    async () => {
      const daemon = await env.startDaemon([], {
        env: { MCPCTL_RPC_LIMITS: 'maxLineBytes=65536,idleFrameMs=1500' },
      });
      const agent = await honestAgent(env);
      try {
        // Garbage first: answered; the connection is a daemon connection, never an agent's.
        const garbage = await raw(env.socket);
        garbage.socket.write('\u0000\u0001 not json at all\n');
        garbage.socket.write(open(1, { workspace: env.workspace }));
        await until('two answers', () => garbage.lines.length >= 2);
        assert.equal(garbage.lines[0]?.error?.code, -32700);
        assert.equal(garbage.lines[1]?.id, 1);
        assert.match(
          garbage.lines[1]?.error?.message ?? '',
          /valid only alone, as the first line of a new connection/,
        );
        garbage.socket.destroy();

        // A first line past the line limit: refused, closed.
        const huge = await raw(env.socket);
        huge.socket.write(
          `{"jsonrpc":"2.0","id":1,"method":"gateway.open","params":{"workspace":"${'x'.repeat(100_000)}"}}\n`,
        );
        await until('the huge line to be refused', () => huge.isClosed());
        assert.equal(huge.lines[0]?.id, null);
        assert.match(huge.lines[0]?.error?.message ?? '', /message longer than 65536 bytes/);

        // A first line that never ends: timed out, closed.
        const stalled = await raw(env.socket);
        stalled.socket.write(
          '{"jsonrpc":"2.0","id":1,"method":"gateway.open","params":{"workspace":',
        );
        await until('the stalled line to time out', () => stalled.isClosed());
        assert.equal(stalled.lines[0]?.error?.code, -32005);
        assert.match(stalled.lines[0]?.error?.message ?? '', /no new byte for 1500 ms/);

        // gateway.open twice: the second is an error and the end; its session is released.
        const folder = path.join(env.root, 'twice');
        mkdirSync(folder);
        const twice = await raw(env.socket);
        twice.socket.write(open(1, { workspace: folder }) + open(2, { workspace: folder }));
        await until('the second gateway.open to end it', () => twice.isClosed());
        assert.ok((twice.lines[0]?.result as { sessionId?: string }).sessionId);
        assert.equal(twice.lines[1]?.id, 2);
        assert.match(
          twice.lines[1]?.error?.message ?? '',
          /gateway.open was the first line of this connection/,
        );
        await until(
          'its session to be released',
          async () => !(await workspaces(env)).includes(folder),
        );

        // A refused gateway.open (relative workspace): the answer says why, then the end.
        const relative = await raw(env.socket);
        relative.socket.write(open(5, { workspace: 'ws' }) + initialize);
        await until('the refusal', () => relative.isClosed());
        assert.deepEqual(
          relative.lines.map((l) => l.id),
          [5],
        );
        assert.match(relative.lines[0]?.error?.message ?? '', /must be absolute paths/);

        assert.match(await agent.echo(), /"tool":"echo"/);
        assert.ok(isAlive(daemon.pid));
        assert.doesNotMatch(daemon.stderr(), /fatal|shutting down/);
      } finally {
        await agent.client.close();
      }
    },
  );

  it(
    'MCP floods after gateway.open: requests past the in-flight limit are refused, a non-reader is not read',
    T,
    async () => {
      const daemon = await env.startDaemon([], {
        env: { MCPCTL_RPC_LIMITS: 'maxRequestsInFlight=50' },
      });
      const agent = await honestAgent(env);
      try {
        const flooder = await raw(env.socket);
        flooder.socket.write(open(1, { workspace: env.workspace }) + initialize);
        await until('the handshake and initialize', () => flooder.lines.length >= 2);
        flooder.socket.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
        // 2000 slow calls at once: 50 run, the others are refused one by one.
        const calls = Array.from({ length: 2000 }, (_, i) =>
          line({
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: { name: 'fx__sleep', arguments: { ms: 60_000 } },
          }),
        );
        flooder.socket.write(calls.join(''));
        await until('1950 refusals', () => flooder.lines.length >= 2 + 1950);
        const refused = flooder.lines.slice(2);
        assert.ok(
          refused.every((l) => l.error?.code === -32005),
          JSON.stringify(refused[0]),
        );
        assert.match(
          refused[0]?.error?.message ?? '',
          /50 requests of this agent are waiting for their answers/,
        );
        assert.match(await agent.echo(), /"tool":"echo"/, 'the other agent is served meanwhile');
        flooder.socket.destroy();

        // An agent that writes without ever reading: the daemon stops reading it.
        const deaf = await rawConnect(env.socket);
        deaf.write(open(1, { workspace: env.workspace }) + initialize);
        const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
        let next = 0;
        await until(
          'the daemon to stop reading the deaf agent',
          () => {
            if (deaf.writableLength < 8 * 1024 * 1024)
              deaf.write(Array.from({ length: 5000 }, () => ping(next++)).join(''));
            return deaf.writableLength > 4 * 1024 * 1024;
          },
          { timeoutMs: 60_000, intervalMs: 20 },
        );
        assert.match(await agent.echo(), /"tool":"echo"/, 'the other agent is served meanwhile');
        deaf.destroy();

        assert.match(await agent.echo(), /"tool":"echo"/);
        assert.ok(isAlive(daemon.pid));
        assert.doesNotMatch(daemon.stderr(), /fatal|shutting down/);
      } finally {
        await agent.client.close();
      }
    },
  );
});
