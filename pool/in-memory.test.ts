/**
 * The pool with an injected Connector on InMemoryTransport: the path the bench and the
 * controller tests use (no processes, real MCP protocol).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DiscoveryTimeoutError } from './errors.js';
import { createPool } from './mcp-pool.js';
import { callTool } from './testing/calls.js';
import { RecordingHolder } from './testing/holders.js';
import { inMemoryConnector } from './testing/in-memory.js';
import { testTicket } from './testing/tickets.js';
import type { Connector } from './types.js';

const T = { timeout: 10_000 };

function toolServer(names: string[]): McpServer {
  const server = new McpServer({ name: 'mem', version: '1.0.0' });
  for (const name of names) {
    server.registerTool(name, { inputSchema: { n: z.number().optional() } }, ({ n }) => ({
      content: [{ type: 'text', text: `${name}:${n ?? 0}` }],
    }));
  }
  return server;
}

test('in-memory: acquire, share, call, list_changed and crash → onLost', T, async () => {
  let dynamic: McpServer | undefined;
  const mem = inMemoryConnector(() => {
    dynamic = toolServer(['a', 'b']);
    return dynamic;
  });
  const pool = createPool({ connector: mem.connector, drainDelayMs: 0, now: () => 1_000_000 });
  try {
    const h1 = new RecordingHolder('s1');
    const h2 = new RecordingHolder('s2');
    const config = { command: 'in-memory' };
    const [l1, l2] = await Promise.all([
      pool.acquire(testTicket('mem', config, { sessionId: 's1' }), h1),
      pool.acquire(testTicket('mem', config, { sessionId: 's2' }), h2),
    ]);
    assert.equal(mem.servers.length, 1);
    assert.equal(l1.key, l2.key);
    assert.equal(l1.pid, undefined);
    assert.equal(l1.startedAt.getTime(), 1_000_000);
    assert.deepEqual(
      l1.tools().map((t) => t.name),
      ['a', 'b'],
    );
    const r = await callTool(pool, l1.key, 'b', { n: 4 });
    assert.deepEqual(r.content, [{ type: 'text', text: 'b:4' }]);
    assert.deepEqual(pool.stats(), [
      {
        key: l1.key,
        connectionId: l1.connectionId,
        name: 'mem',
        state: 'ready',
        refs: ['s1', 's2'],
        pid: undefined,
        createdAt: new Date(1_000_000),
        startedAt: new Date(1_000_000),
        drainEndsAt: undefined,
        tools: 2,
        prompts: 0,
      },
    ]);

    const changed = Promise.all([h1.nextListChanged(), h2.nextListChanged()]);
    dynamic?.registerTool('c', {}, () => ({ content: [] }));
    await changed;
    assert.deepEqual(
      l2.tools().map((t) => t.name),
      ['a', 'b', 'c'],
    );

    await mem.servers[0]?.crash();
    const reason = await h1.nextLost();
    await h2.nextLost();
    assert.match(reason, /server "mem": connection closed/);
    assert.deepEqual(pool.stats(), []);
  } finally {
    await pool.close();
  }
});

test('in-memory: tools are listed across every page', T, async () => {
  const all: Tool[] = Array.from({ length: 7 }, (_, i) => ({
    name: `t${i}`,
    inputSchema: { type: 'object' as const },
  }));
  const mem = inMemoryConnector(() => {
    const server = new Server({ name: 'paged', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (req) => {
      const start = Number(req.params?.cursor ?? 0);
      const next = start + 3;
      return {
        tools: all.slice(start, next),
        ...(next < all.length ? { nextCursor: String(next) } : {}),
      };
    });
    return server;
  });
  const pool = createPool({ connector: mem.connector, drainDelayMs: 0 });
  try {
    const lease = await pool.acquire(
      testTicket('paged', { command: 'x' }),
      new RecordingHolder('s1'),
    );
    assert.deepEqual(
      lease.tools().map((t) => t.name),
      all.map((t) => t.name),
    );
    assert.deepEqual(lease.prompts(), [], 'no prompts capability → not asked');
  } finally {
    await pool.close();
  }
});

test(
  'in-memory: a server that repeats a cursor fails the connect instead of looping',
  T,
  async () => {
    const mem = inMemoryConnector(() => {
      const server = new Server({ name: 'loop', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [], nextCursor: 'again' }));
      return server;
    });
    const pool = createPool({ connector: mem.connector, drainDelayMs: 0 });
    try {
      await assert.rejects(
        pool.acquire(testTicket('loop', { command: 'x' }), new RecordingHolder('s1')),
        {
          name: 'ConnectError',
          message:
            /server "loop": tools\/list failed: tools\/list: the server repeated cursor "again"/,
        },
      );
      assert.deepEqual(pool.stats(), []);
    } finally {
      await pool.close();
    }
  },
);

test('in-memory: the discovery deadline also covers listing', T, async () => {
  const mem = inMemoryConnector(() => {
    const server = new Server({ name: 'slow', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async (_req, extra) => {
      // Slow, but stops when the request is cancelled: no timer outlives the test.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { tools: [] };
    });
    return server;
  });
  const pool = createPool({ connector: mem.connector, drainDelayMs: 0 });
  try {
    const started = Date.now();
    const err = await pool
      .acquire(
        testTicket('slowlist', { command: 'x', discoveryTimeoutMs: 300 }),
        new RecordingHolder('s1'),
      )
      .then(
        () => assert.fail('should time out'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof DiscoveryTimeoutError);
    assert.equal(err.phase, 'tools/list');
    assert.match(err.message, /server "slowlist": timed out after 300 ms during tools\/list/);
    assert.ok(Date.now() - started < 3000);
  } finally {
    await pool.close();
  }
});

test(
  'a connector that ignores the abort is given up on after a bound, and its late connection closed',
  { timeout: 15_000 },
  async () => {
    let closedLate = false;
    let finish: (() => void) | undefined;
    const stubborn: Connector = () =>
      new Promise((resolve) => {
        finish = () =>
          resolve({
            // Stubs: the pool only ever calls close() on a connection it gave up on.
            client: { close: () => Promise.resolve() } as never,
            transport: {} as never,
            pid: undefined,
            stderrTail: () => [],
            close: () => {
              closedLate = true;
              return Promise.resolve();
            },
          });
      });
    const pool2 = createPool({ connector: stubborn, drainDelayMs: 0, graceMs: 0 });
    try {
      const err = await pool2
        .acquire(
          testTicket('stubborn', { command: 'x', discoveryTimeoutMs: 100 }),
          new RecordingHolder('s1'),
        )
        .then(
          () => assert.fail('should time out'),
          (e: unknown) => e,
        );
      assert.ok(err instanceof DiscoveryTimeoutError);
      assert.equal(err.phase, 'connect');
      finish?.();
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(closedLate, 'a connection that arrives too late is closed, not leaked');
    } finally {
      await pool2.close();
    }
  },
);

test('a holder callback that throws is reported and does not stop the others', T, async () => {
  let dynamic: McpServer | undefined;
  const mem = inMemoryConnector(() => {
    dynamic = toolServer(['a']);
    return dynamic;
  });
  const warnings: string[] = [];
  const pool = createPool({
    connector: mem.connector,
    drainDelayMs: 0,
    onWarning: (m) => warnings.push(m),
  });
  try {
    const bad = {
      sessionId: 'bad',
      onLost: () => {
        throw new Error('lost handler broke');
      },
      onListChanged: () => {
        throw new Error('changed handler broke');
      },
    };
    const good = new RecordingHolder('good');
    await pool.acquire(testTicket('m', { command: 'x' }, { sessionId: 'bad' }), bad);
    await pool.acquire(testTicket('m', { command: 'x' }, { sessionId: 'good' }), good);
    const changed = good.nextListChanged();
    dynamic?.registerTool('b', {}, () => ({ content: [] }));
    await changed;
    await mem.servers[0]?.crash();
    await good.nextLost();
    assert.ok(
      warnings.some((w) => /onListChanged of session bad threw: changed handler broke/.test(w)),
    );
    assert.ok(warnings.some((w) => /onLost of session bad threw: lost handler broke/.test(w)));
  } finally {
    await pool.close();
  }
});
