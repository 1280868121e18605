/**
 * A pooled server's answer over the message limit fails the one request it answers, whichever
 * way the request was sent (an agent's, beside the SDK client; or the SDK client's own), while
 * the other requests on the same connection go on and the process stays.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createConnector } from './connector.js';
import { createPool } from './mcp-pool.js';
import { RecordingHolder } from './testing/holders.js';
import { testTicket } from './testing/tickets.js';
import type { OversizedLine } from './traffic.js';
import type { Connector } from './types.js';
import type { McpServerConfig } from '../api/index.js';

const T = { timeout: 60_000 };

/** A raw stdio server: tool `text` answers with `args.size` bytes of text, `args.delay` ms late. */
const SERVER = `
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
    let delay = 0;
    if (m.method === 'initialize')
      result = { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
                 serverInfo: { name: 'sizes', version: '1.0.0' } };
    else if (m.method === 'tools/list')
      result = { tools: [{ name: 'text', inputSchema: { type: 'object' } }] };
    else if (m.method === 'tools/call') {
      result = { content: [{ type: 'text', text: 'x'.repeat(m.params.arguments.size) }] };
      delay = m.params.arguments.delay ?? 0;
    }
    const out = JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n';
    setTimeout(() => process.stdout.write(out), delay);
  }
});
process.stdin.on('end', () => process.exit(0));
`;

const config: McpServerConfig = { command: process.execPath, args: ['-e', SERVER] };

class OversizeHolder extends RecordingHolder {
  readonly oversized: OversizedLine[] = [];
  onOversized(line: OversizedLine): void {
    this.oversized.push(line);
  }
}

const MiB = 1024 * 1024;

/** The real connector, keeping the SDK Client it opened (its own requests have numeric ids). */
function clientKeeping(): { connector: Connector; client(): Client } {
  const real = createConnector({ graceMs: 300 });
  let client: Client | undefined;
  const connector: Connector = async (ticket, signal, setup) => {
    const connected = await real(ticket, signal, setup);
    client = connected.client;
    return connected;
  };
  return {
    connector,
    client: () => {
      if (!client) throw new Error('no connection opened yet');
      return client;
    },
  };
}

test(
  'an answer over 16 MiB fails its request only; the others and the process go on',
  T,
  async () => {
    const opened = clientKeeping();
    const pool = createPool({ connector: opened.connector, drainDelayMs: 0, graceMs: 300 });
    const holder = new OversizeHolder('s1');
    try {
      const lease = await pool.acquire(testTicket('sizes', config), holder);
      const pid = lease.pid;
      const call = (size: number, delay = 0) =>
        pool.request(lease.key, {
          method: 'tools/call',
          params: { name: 'text', arguments: { size, delay } },
        });
      // The allowed answer comes last, so it is read after the one too large.
      const [tooLarge, allowed] = await Promise.allSettled([call(17 * MiB), call(12 * MiB, 300)]);
      assert.equal(tooLarge.status, 'rejected');
      const error = tooLarge.status === 'rejected' ? (tooLarge.reason as McpError) : undefined;
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32005);
      assert.match(
        error.message,
        /answer of sizes exceeded the 16 MiB message limit \(17\.0 MiB\)/,
      );
      assert.equal(allowed.status, 'fulfilled');
      const content = allowed.status === 'fulfilled' ? allowed.value.content : undefined;
      assert.equal((content as Array<{ text: string }>)[0]?.text.length, 12 * MiB);

      // The SDK client's own requests (numeric ids) fail the same way.
      const client = opened.client();
      await assert.rejects(client.callTool({ name: 'text', arguments: { size: 17 * MiB } }), {
        code: -32005,
      });
      assert.equal(
        await client.callTool({ name: 'text', arguments: { size: 3 } }).then(() => 'ok'),
        'ok',
      );

      assert.deepEqual(
        holder.oversized.map((l) => l.kind),
        ['answer', 'answer'],
      );
      assert.deepEqual(holder.lost, [], 'the connection was never lost');
      assert.equal(pool.stats()[0]?.state, 'ready');
      assert.equal(pool.stats()[0]?.pid, pid, 'the same process');
    } finally {
      await pool.close();
    }
  },
);
