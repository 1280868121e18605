/**
 * The serve bridge over the daemon protocol, in one process: an SDK Client ↔ bridge ↔
 * RpcSessionPort ↔ Unix socket ↔ the daemon's serve.* methods ↔ a real Daemon whose pool
 * connects in-memory MCP servers. Files and the watcher are real.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Daemon } from '../../controller/daemon.js';
import { createPool } from '../../pool/index.js';
import { inMemoryConnector } from '../../pool/testing/in-memory.js';
import { mapDomainError, methodTable } from '../methods/index.js';
import { connectClient, type RpcClient } from '../rpc-client.js';
import { RpcServer } from '../rpc-server.js';
import { createBridge } from '../../gateway/gateway.js';
import { LIST_CHANGED_MIN_INTERVAL_MS } from '../../gateway/local-port.js';
import { RpcSessionPort } from './rpc-port.js';

const T = { timeout: 30_000 };

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
    s.registerTool(
      t,
      { description: `tool ${t}`, inputSchema: { text: z.string() } },
      ({ text }) => ({ content: [{ type: 'text', text: `${t}:${text}` }] }),
    );
  }
  return s;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

interface World {
  root: string;
  home: string;
  ws: string;
  approvals: string;
  daemon: Daemon;
  rpc: RpcServer;
  socket: string;
  write(file: string, content: unknown): void;
}

interface Attached {
  client: Client;
  rpc: RpcClient;
  port: RpcSessionPort;
  listChanged: number;
  close(): Promise<void>;
}

async function attach(w: World, opts: { workspace?: string; decide?: string } = {}) {
  const rpc = await connectClient(w.socket);
  const { sessionId } = await rpc.call<{ sessionId: string }>('session.open', {
    workspace: opts.workspace ?? w.ws,
  });
  const port = await RpcSessionPort.attach(rpc, sessionId);
  const bridge = createBridge(port, { version: '0.0.0-test', log: () => undefined });
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { capabilities: opts.decide ? { elicitation: {} } : {} },
  );
  const state: Attached = {
    client,
    rpc,
    port,
    listChanged: 0,
    async close() {
      await client.close();
      await bridge.close();
      await port.close();
    },
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    state.listChanged += 1;
  });
  if (opts.decide) {
    const decision = opts.decide;
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept' as const,
      content: { decision },
    }));
  }
  const [a, b] = InMemoryTransport.createLinkedPair();
  await bridge.connect(b);
  await client.connect(a);
  return state;
}

describe('serve over the daemon socket', T, () => {
  let w: World;
  beforeEach(async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'mcpctl-serve-rpc-')));
    const home = path.join(root, 'home');
    const ws = path.join(root, 'ws');
    mkdirSync(path.join(home, '.qwen'), { recursive: true });
    mkdirSync(ws, { recursive: true });
    const approvals = path.join(root, 'approvals.json');
    const mem = inMemoryConnector((ticket) => memServer(ticket.config.args ?? []));
    const daemon = await Daemon.start({
      workspace: ws,
      home,
      systemSettingsPath: path.join(root, 'system.json'),
      env: { MCPCTL_APPROVALS_PATH: approvals },
      stateFile: path.join(root, 'children.json'),
      pool: createPool({ connector: mem.connector, drainDelayMs: 0 }),
      debounceMs: 60,
    });
    const socket = path.join(root, 'd.sock');
    const rpc = new RpcServer({
      methods: methodTable({
        daemon,
        socketPath: socket,
        version: '0.0.0-test',
        requestStop: () => undefined,
      }),
      mapError: mapDomainError,
    });
    await rpc.listen(socket);
    w = {
      root,
      home,
      ws,
      approvals,
      daemon,
      rpc,
      socket,
      write(file, content) {
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, JSON.stringify(content));
      },
    };
  });
  afterEach(async () => {
    await w.rpc.close();
    await w.daemon.stop();
    rmSync(w.root, { recursive: true, force: true });
  });

  const userSettings = () => path.join(w.home, '.qwen', 'settings.json');

  it(
    'lists, calls, follows edits with one list_changed per burst, explains removed tools',
    T,
    async () => {
      w.write(userSettings(), { mcpServers: { fs: { command: 'mem', args: ['read', 'write'] } } });
      await w.daemon.defaultSession.reload();
      const c = await attach(w);
      try {
        assert.deepEqual(
          (await c.client.listTools()).tools.map((t) => t.name),
          ['fs__read', 'fs__write'],
        );
        assert.equal(
          text(await c.client.callTool({ name: 'fs__read', arguments: { text: 'hi' } })),
          'read:hi',
        );

        c.listChanged = 0;
        w.write(userSettings(), {
          mcpServers: {
            fs: { command: 'mem', args: ['read', 'write'] },
            a: { command: 'mem', args: ['x'] },
            b: { command: 'mem', args: ['y'] },
          },
        });
        await until('new tools', async () => (await c.client.listTools()).tools.length === 4);
        await w.daemon.defaultSession.settled();
        // It may wait out the agent's settle window after an earlier notification.
        await until('list_changed', () => c.listChanged > 0);
        await new Promise((r) => setTimeout(r, LIST_CHANGED_MIN_INTERVAL_MS + 150));
        assert.equal(c.listChanged, 1, 'one notification for one save');

        w.write(userSettings(), { mcpServers: { a: { command: 'mem', args: ['x'] } } });
        await until(
          'fs gone',
          async () => !(await c.client.listTools()).tools.some((t) => t.name === 'fs__read'),
        );
        const r = (await c.client.callTool({
          name: 'fs__read',
          arguments: { text: 'x' },
        })) as CallToolResult;
        assert.equal(r.isError, true);
        assert.match(text(r), /fs was removed.*: add "fs" back/);
      } finally {
        await c.close();
      }
    },
  );

  it('carries the client’s cancellation to the server through the daemon', T, async () => {
    w.write(userSettings(), { mcpServers: { slow: { command: 'mem', args: ['wait'] } } });
    await w.daemon.defaultSession.reload();
    const c = await attach(w);
    try {
      const before = { ...waitTool };
      const controller = new AbortController();
      const call = c.client.callTool({ name: 'slow__wait', arguments: {} }, undefined, {
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
      // The connection still serves calls afterwards.
      assert.equal((await c.client.listTools()).tools[0]?.name, 'slow__wait');
    } finally {
      await c.close();
    }
  });

  it('asks a client that connects later about a server that is already pending', T, async () => {
    w.write(path.join(w.ws, '.mcp.json'), { mcpServers: { p: { command: 'mem', args: ['t'] } } });
    await w.daemon.defaultSession.reload();
    assert.equal(w.daemon.defaultSession.why('p').reason, 'PendingApproval');
    const c = await attach(w, { decide: 'approve' });
    try {
      await until('p tools', async () =>
        (await c.client.listTools()).tools.some((t) => t.name === 'p__t'),
      );
      const file = JSON.parse(readFileSync(w.approvals, 'utf8')) as Record<
        string,
        Record<string, { status: string }>
      >;
      assert.equal(file[w.ws]?.p?.status, 'approved');
    } finally {
      await c.close();
    }
  });

  it('a pending server the client rejects stays down, and calling it says why', T, async () => {
    const c = await attach(w, { decide: 'reject' });
    try {
      w.write(path.join(w.ws, '.mcp.json'), { mcpServers: { p: { command: 'mem', args: ['t'] } } });
      await until('p rejected', () => w.daemon.defaultSession.why('p').reason === 'Rejected');
      assert.deepEqual((await c.client.listTools()).tools, []);
      const r = (await c.client.callTool({ name: 'p__t', arguments: {} })) as CallToolResult;
      assert.equal(r.isError, true);
      assert.match(text(r), /rejected/i);
    } finally {
      await c.close();
    }
  });

  it('closing the port releases the session it opened', T, async () => {
    const other = path.join(w.root, 'other');
    mkdirSync(other);
    const c = await attach(w, { workspace: other });
    assert.ok(w.daemon.session(c.port.sessionId), 'session open while attached');
    await c.close();
    await until('the session to close', () => w.daemon.session(c.port.sessionId) === undefined);
    await assert.rejects(c.rpc.call('serve.list', { sessionId: 'default' }));
  });
});
