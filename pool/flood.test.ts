/**
 * The pool against servers that flood (issue 13, finding 10): list_changed re-lists stay
 * within the connection's budget yet end on the server's last list, notifications past the
 * budget are dropped, holders hear of it, and the connection keeps serving.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { until } from '../testing/until.js';
import { createPool } from './mcp-pool.js';
import { callTool } from './testing/calls.js';
import { RecordingHolder } from './testing/holders.js';
import { inMemoryConnector } from './testing/in-memory.js';
import { testTicket } from './testing/tickets.js';
import { DEFAULT_TRAFFIC_LIMITS, type TrafficLimits } from './traffic.js';
import type { Holder } from './types.js';

const T = { timeout: 20_000 };

/** A low-level server whose tool list is `tool_<version>` and that counts tools/list. */
function churnServer() {
  const state = { version: 0, lists: 0 };
  const server = new Server(
    { name: 'churn', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => {
    state.lists += 1;
    return { tools: [{ name: `tool_${state.version}`, inputSchema: { type: 'object' } }] };
  });
  server.setRequestHandler(CallToolRequestSchema, () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  return { server, state };
}

class FloodHolder extends RecordingHolder implements Holder {
  flooding = 0;
  onFlooding(): void {
    this.flooding += 1;
  }
}

const limits = (over: Partial<TrafficLimits>): TrafficLimits => ({
  ...DEFAULT_TRAFFIC_LIMITS,
  ...over,
});

test(
  'list_changed in a tight loop: re-lists within the budget, ending on the last list',
  T,
  async () => {
    const { server, state } = churnServer();
    const mem = inMemoryConnector(() => server);
    const pool = createPool({
      connector: mem.connector,
      drainDelayMs: 0,
      trafficLimits: limits({ relistsPerSecond: 5, relistBurst: 2 }),
    });
    try {
      const holder = new FloodHolder('s1');
      const lease = await pool.acquire(testTicket('churn', { command: 'x' }), holder);
      const listsAtStart = state.lists;
      const started = Date.now();
      for (let i = 1; i <= 300; i += 1) {
        state.version = i;
        await server.sendToolListChanged();
      }
      await until('the last list', () => lease.tools()[0]?.name === 'tool_300', {
        timeoutMs: 10_000,
      });
      assert.equal(lease.tools()[0]?.name, 'tool_300', 'the last list wins');
      const elapsedS = (Date.now() - started) / 1000;
      const relists = state.lists - listsAtStart;
      // Budget: the burst, then 5 per second of the time it took (plus the one in flight).
      assert.ok(
        relists <= 2 + Math.ceil(5 * elapsedS) + 1,
        `${relists} re-lists for 300 notifications in ${elapsedS} s`,
      );
      assert.ok(holder.listChanged <= relists);
      assert.deepEqual(lease.flooding?.()?.kinds, ['list changes']);
      assert.ok(holder.flooding >= 1, 'the holder heard of it');
    } finally {
      await pool.close();
    }
  },
);

test('notifications past the budget are dropped; the connection keeps serving', T, async () => {
  const { server } = churnServer();
  const mem = inMemoryConnector(() => server);
  const pool = createPool({
    connector: mem.connector,
    drainDelayMs: 0,
    trafficLimits: limits({ messagesPerSecond: 10, messageBurst: 10 }),
  });
  try {
    const holder = new FloodHolder('s1');
    const lease = await pool.acquire(testTicket('log', { command: 'x' }), holder);
    assert.equal(lease.flooding?.(), undefined);
    const sends: Promise<void>[] = [];
    for (let i = 0; i < 2000; i += 1)
      sends.push(server.sendLoggingMessage({ level: 'info', data: `flood ${i}` }));
    await Promise.all(sends);
    await until('the flood report', () => lease.flooding?.() !== undefined, { timeoutMs: 5000 });
    assert.deepEqual(lease.flooding?.()?.kinds, ['messages']);
    assert.match(lease.flooding?.()?.note ?? '', /notifications over 10\/s dropped/);
    assert.equal(holder.flooding, 1);
    const r = await callTool(pool, lease.key, 'anything', {});
    assert.deepEqual(r.content, [{ type: 'text', text: 'ok' }]);
    assert.deepEqual(holder.lost, []);
  } finally {
    await pool.close();
  }
});

test(
  'progress past the budget is dropped too, on a connection whose transport brings no budget',
  T,
  async () => {
    // A remote (or in-memory) transport has no budget of its own: the connection's guard must
    // see progress before it is dispatched, or a server floods an agent with it unchecked.
    const server = new Server(
      { name: 'progress', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'slow', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const progressToken = request.params._meta?.progressToken;
      if (progressToken !== undefined)
        for (let i = 1; i <= 500; i += 1)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: i },
          });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const mem = inMemoryConnector(() => server);
    const pool = createPool({
      connector: mem.connector,
      drainDelayMs: 0,
      trafficLimits: limits({ messagesPerSecond: 10, messageBurst: 10 }),
    });
    try {
      const holder = new FloodHolder('s1');
      const lease = await pool.acquire(testTicket('progress', { command: 'x' }), holder);
      let heard = 0;
      const started = Date.now();
      const r = (await pool.request(
        lease.key,
        { method: 'tools/call', params: { name: 'slow', arguments: {} } },
        { onprogress: () => (heard += 1) },
      )) as CallToolResult;
      const elapsedS = (Date.now() - started) / 1000;
      assert.deepEqual(r.content, [{ type: 'text', text: 'done' }]);
      assert.ok(
        heard <= 10 + Math.ceil(10 * elapsedS) + 1,
        `${heard} of 500 progress notifications passed a budget of 10/s in ${elapsedS} s`,
      );
      await until('the flood report', () => lease.flooding?.() !== undefined, { timeoutMs: 5000 });
      assert.deepEqual(lease.flooding?.()?.kinds, ['messages']);
    } finally {
      await pool.close();
    }
  },
);
