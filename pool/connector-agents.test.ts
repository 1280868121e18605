/**
 * The real connector declares what the pool relays to agents (sampling, elicitation, roots):
 * @modelcontextprotocol/server-everything, a real stdio process, then offers the tools that need
 * them, asks the agent holding the call, and sees the attached agents' roots.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { createPool } from './mcp-pool.js';
import { eventually } from './testing/fixtures.js';
import { RecordingHolder } from './testing/holders.js';
import { RecordingPeer } from './testing/peers.js';
import { testTicket } from './testing/tickets.js';

const requireHere = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(requireHere.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

const textOf = (r: Record<string, unknown>): string =>
  (r['content'] as Array<{ text?: string }>)[0]?.text ?? '';

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
      assert.ok(
        await eventually(
          () => needed.every((n) => lease.tools().some((t) => t.name === n)),
          20_000,
        ),
        `tools: ${lease
          .tools()
          .map((t) => t.name)
          .join(', ')}`,
      );

      const a = new RecordingPeer('agent A', {
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
      let roots = '';
      for (const until = Date.now() + 20_000; Date.now() < until;) {
        roots = textOf(await call('get-roots-list'));
        if (roots.includes('file:///projects/a')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(roots, /file:\/\/\/projects\/a/);
      assert.ok(
        await eventually(() =>
          a
            .heard('notifications/message')
            .some((m) => /Roots updated: 1 root/.test(String(m.params?.['data']))),
        ),
      );
      assert.deepEqual(holder.lost, []);
    } finally {
      await pool.close();
    }
  },
);
