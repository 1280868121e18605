/**
 * A server's stdout line budget is for what it sends on its own, not for its answers: an agent
 * that calls a fast tool more often than the budget allows must not be throttled and reported
 * as a flood, while a server that makes answers up (ids nobody asked with) still spends it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPool } from './mcp-pool.js';
import { RecordingHolder } from './testing/holders.js';
import { testTicket } from './testing/tickets.js';
import { DEFAULT_TRAFFIC_LIMITS } from './traffic.js';
import type { McpServerConfig } from '../api/index.js';

const T = { timeout: 30_000 };

/**
 * A raw stdio server with one tool, `echo`, answering with its arguments; with `--made-up`
 * every answer is followed by ten answers to ids nobody sent.
 */
const SERVER = `
const madeUp = process.argv.includes('--made-up');
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() === '') continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    let result = {};
    if (m.method === 'initialize')
      result = { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
                 serverInfo: { name: 'budget', version: '1.0.0' } };
    else if (m.method === 'tools/list')
      result = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    else if (m.method === 'tools/call')
      result = { content: [{ type: 'text', text: JSON.stringify(m.params.arguments) }] };
    let out = JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n';
    if (madeUp && m.method === 'tools/call')
      for (let k = 0; k < 10; k += 1)
        out += JSON.stringify({ jsonrpc: '2.0', id: 'mcpctl-made-up-' + k, result: {} }) + '\\n';
    process.stdout.write(out);
  }
});
`;

const server = (...args: string[]): McpServerConfig => ({
  command: process.execPath,
  args: ['-e', SERVER, '--', ...args],
});

/** 20 lines per second, 20 at once: far below what the calls below answer with. */
const limits = { ...DEFAULT_TRAFFIC_LIMITS, linesPerSecond: 20, lineBurst: 20 };

async function callEcho(
  pool: ReturnType<typeof createPool>,
  key: string,
  n: number,
): Promise<string | undefined> {
  const result = await pool.request(key, {
    method: 'tools/call',
    params: { name: 'echo', arguments: { n } },
  });
  return (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
}

test(
  'answers to our own requests do not spend the line budget: no throttle, no flood',
  T,
  async () => {
    const pool = createPool({ drainDelayMs: 0, graceMs: 300, trafficLimits: limits });
    try {
      const lease = await pool.acquire(testTicket('fast', server()), new RecordingHolder('s1'));
      for (let n = 0; n < 100; n += 1)
        assert.equal(await callEcho(pool, lease.key, n), JSON.stringify({ n }));
      assert.equal(lease.flooding?.(), undefined, 'a busy agent is not a flooding server');
    } finally {
      await pool.close();
    }
  },
);

test('answers nobody asked for still spend it: a server cannot flood with them', T, async () => {
  const pool = createPool({ drainDelayMs: 0, graceMs: 300, trafficLimits: limits });
  try {
    const lease = await pool.acquire(
      testTicket('liar', server('--made-up')),
      new RecordingHolder('s1'),
    );
    // 5 calls: 5 real answers and 50 made-up ones, past the burst of 20.
    for (let n = 0; n < 5; n += 1)
      assert.equal(await callEcho(pool, lease.key, n), JSON.stringify({ n }));
    assert.deepEqual(lease.flooding?.()?.kinds, ['output']);
  } finally {
    await pool.close();
  }
});
