import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ReceiptGate } from './gateway-receipts.js';

/** A gate whose receipt writes complete when the test says (`finish`). */
function gate() {
  const writes: { line: string; done: (written: boolean) => void }[] = [];
  const delivered: unknown[] = [];
  const g = new ReceiptGate(
    (line, done) => writes.push({ line, done }),
    (m) => delivered.push('id' in m ? m.id : (m as { method: string }).method),
  );
  return { g, writes, delivered };
}

const request = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call' });
const note = (method: string): JSONRPCMessage => ({ jsonrpc: '2.0', method });
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ReceiptGate', () => {
  it('lets a request through only once its receipt is written, in order', async () => {
    const { g, writes, delivered } = gate();
    g.push(note('notifications/initialized')); // Nothing waits: at once.
    g.push(request(1));
    g.push(request(2));
    g.push(note('notifications/cancelled')); // Behind the requests.
    assert.deepEqual(delivered, ['notifications/initialized']);
    await turn();
    assert.deepEqual(
      writes.map((w) => JSON.parse(w.line) as unknown),
      [{ jsonrpc: '2.0', method: 'mcpctl/received', params: { ids: [1, 2] } }],
      'one receipt for the turn',
    );
    g.push(request(3));
    await turn();
    assert.equal(writes.length, 2);
    assert.deepEqual(delivered, ['notifications/initialized'], 'nothing before its receipt');
    writes[0].done(true);
    assert.deepEqual(delivered, ['notifications/initialized', 1, 2, 'notifications/cancelled']);
    writes[1].done(true);
    assert.deepEqual(delivered.slice(4), [3]);
  });

  it('a receipt not written lets nothing through; after close nothing passes', async () => {
    const { g, writes, delivered } = gate();
    g.push(request(1));
    await turn();
    writes[0].done(false);
    g.push(note('x'));
    assert.deepEqual(delivered, []);
    g.push(request(2));
    await turn();
    g.close();
    writes[1].done(true);
    g.push(note('y'));
    assert.deepEqual(delivered, []);
  });
});
