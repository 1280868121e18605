import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { asJsonRpcMessage } from './jsonrpc-shape.js';

const T = { timeout: 30_000 };

const samples: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } },
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, result: { content: [], extra: 1 } },
  { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'nope', data: { x: 1 } } },
  { jsonrpc: '2.0', id: 1.5, method: 'x' },
  { jsonrpc: '2.0', id: 1, result: 3 },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', method: 'x', params: [1] },
  { jsonrpc: '1.0', id: 1, result: {} },
  { jsonrpc: '2.0' },
  { id: 1, result: {} },
  [],
  null,
  'x',
  { jsonrpc: '2.0', method: 7 },
  { jsonrpc: '2.0', id: null, method: 'x' },
];

describe('asJsonRpcMessage', T, () => {
  it('agrees with the SDK schema on every sample', T, () => {
    for (const s of samples)
      assert.equal(
        asJsonRpcMessage(s) !== undefined,
        JSONRPCMessageSchema.safeParse(s).success,
        JSON.stringify(s),
      );
  });

  // Never stricter than the SDK (a message it takes is never refused here); on odd mixtures
  // (a result and an error at once) it may be laxer: the SDK's Protocol checks again.
  it('takes every generated message the SDK schema takes', T, () => {
    const id = fc.oneof(
      fc.integer(),
      fc.string(),
      fc.double(),
      fc.constant(null),
      fc.constant(undefined),
    );
    const obj = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue());
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id,
        method: fc.oneof(fc.string(), fc.integer()),
        params: obj,
        result: obj,
        error: fc.oneof(
          fc.record(
            {
              code: fc.oneof(fc.integer(), fc.double()),
              message: fc.oneof(fc.string(), fc.integer()),
            },
            { requiredKeys: [] },
          ),
          obj,
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(message, (m) => {
        const clean = JSON.parse(JSON.stringify(m)) as unknown;
        if (JSONRPCMessageSchema.safeParse(clean).success)
          assert.ok(asJsonRpcMessage(clean) !== undefined, JSON.stringify(clean));
      }),
      { numRuns: 5000 },
    );
  });
});
