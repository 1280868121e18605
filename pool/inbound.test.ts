import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { pipeInbound } from './inbound.js';

/** A transport as the SDK leaves it after connect: its handler records what reaches it. */
function connected(): { transport: Transport; sdk: JSONRPCMessage[] } {
  const sdk: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: () => Promise.resolve(),
    send: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  transport.onmessage = (message) => sdk.push(message);
  return { transport, sdk };
}

const note = (method: string): JSONRPCMessage => ({ jsonrpc: '2.0', method });

test('steps run in list order; the first that takes a message ends its way', () => {
  const { transport, sdk } = connected();
  const seen: string[] = [];
  pipeInbound(transport, [
    (m) => {
      seen.push(`a:${'method' in m ? m.method : ''}`);
      return 'method' in m && m.method === 'mine';
    },
    (m) => {
      seen.push(`b:${'method' in m ? m.method : ''}`);
      return false;
    },
  ]);
  transport.onmessage?.(note('mine'));
  transport.onmessage?.(note('other'));
  assert.deepEqual(seen, ['a:mine', 'a:other', 'b:other']);
  assert.deepEqual(sdk, [note('other')], 'only what no step took reaches the SDK');
});

test('a message no step takes reaches the SDK unchanged, with its extra, in order', () => {
  const { transport } = connected();
  const got: Array<[JSONRPCMessage, unknown]> = [];
  transport.onmessage = (message, extra) => got.push([message, extra]);
  pipeInbound(transport, [() => false]);
  const first = note('one');
  const extra = { authInfo: { token: 't', clientId: 'c', scopes: [] } };
  transport.onmessage?.(first, extra);
  transport.onmessage?.(note('two'));
  assert.equal(got[0]?.[0], first, 'the same object');
  assert.equal(got[0]?.[1], extra);
  assert.deepEqual(
    got.map(([m]) => ('method' in m ? m.method : '')),
    ['one', 'two'],
  );
});
