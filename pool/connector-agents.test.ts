/**
 * The real connector declares what the pool relays to agents (sampling, elicitation, roots):
 * @modelcontextprotocol/server-everything, a real stdio process, then offers the tools that need
 * them, asks the agent holding the call, and sees the attached agents' roots.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import { createPool } from './mcp-pool.js';
import { RecordingPoolAgent } from './testing/agents.js';
import { RecordingHolder } from './testing/holders.js';
import { testTicket } from './testing/tickets.js';
import { textOf } from '../testing/tool-results.js';

const requireHere = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(requireHere.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

test(
  'server-everything through the pool: it offers its sampling, elicitation and roots tools, and they reach the agents',
  { timeout: 60_000 },
  async () => {
    const pool = createPool({ drainDelayMs: 0, graceMs: 300 });
    try {
      const holder = new RecordingHolder('s1');
      const lease = await pool.acquire(
        testTicket('everything', { command: process.execPath, args: [EVERYTHING] }),
        holder,
      );
      const needed = ['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request'];
      // It registers these once it has seen our capabilities (then says tools/list_changed).
      await until(
        `tools ${needed.join(', ')}`,
        () => {
          const names = lease.tools().map((t) => t.name);
          if (!needed.every((n) => names.includes(n)))
            throw new Error(`tools: ${names.join(', ')}`);
          return true;
        },
        { timeoutMs: 20_000 },
      );

      const a = new RecordingPoolAgent('agent A', {
        can: ['sampling', 'elicitation'],
        roots: [{ uri: 'file:///projects/a', name: 'a' }],
      });
      pool.attach(lease.key, a);
      const call = (name: string, args: Record<string, unknown> = {}) =>
        pool.request(
          lease.key,
          { method: 'tools/call', params: { name, arguments: args } },
          { caller: a },
        );

      const sampled = textOf(await call('trigger-sampling-request', { prompt: 'hello' }));
      assert.match(sampled, /answer of agent A/);
      assert.equal(a.requests[0]?.method, 'sampling/createMessage');
      assert.equal(a.requests[0]?.params?.['systemPrompt'], 'You are a helpful test server.');

      // The server re-reads roots after our list_changed, and logs that it did.
      const roots = await until(
        "the server to list agent A's roots",
        async () => {
          const text = textOf(await call('get-roots-list'));
          if (!text.includes('file:///projects/a')) throw new Error(`roots: ${text}`);
          return text;
        },
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      assert.match(roots, /file:\/\/\/projects\/a/);
      await until("the server's log that it re-read the roots", () =>
        a
          .heard('notifications/message')
          .some((m) => /Roots updated: 1 root/.test(String(m.params?.['data']))),
      );
      assert.deepEqual(holder.lost, []);
    } finally {
      await pool.close();
    }
  },
);
