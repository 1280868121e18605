import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { batchRefusal, negotiatedVersion } from './batches.js';

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-03-26',
    capabilities: {},
    clientInfo: { name: 'unit', version: '1' },
  },
};

describe('http batches', () => {
  it('the negotiated version: the one asked for when known, else the latest', () => {
    assert.equal(negotiatedVersion('2025-03-26'), '2025-03-26');
    assert.equal(negotiatedVersion('2025-06-18'), '2025-06-18');
    assert.equal(negotiatedVersion('1999-01-01'), LATEST_PROTOCOL_VERSION);
  });

  it('a batch runs only where the protocol has batches, an initialize never in one', () => {
    const batch = [ping(1), ping(2)];
    assert.equal(batchRefusal(batch, '2025-03-26'), undefined);
    assert.equal(batchRefusal(batch, '2024-11-05'), undefined);
    for (const version of ['2025-06-18', '2025-11-25'])
      assert.match(batchRefusal(batch, version) ?? '', new RegExp(`a batch: MCP ${version}`));
    assert.equal(batchRefusal(ping(1), '2025-11-25'), undefined, 'one message is no batch');
    for (const version of [undefined, '2025-03-26'])
      assert.match(batchRefusal([initialize], version) ?? '', /initialize must be sent alone/);
    assert.equal(batchRefusal(batch, undefined), undefined, 'no session: not ours to say');
  });
});
