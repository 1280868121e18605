import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_CAPTURE, MessageProbe, type Probed } from './message-probe.js';

/** What the probe learns from `text` fed in pieces of `size` bytes. */
function probe(text: string, size = Infinity): Probed {
  const bytes = Buffer.from(text);
  const p = new MessageProbe();
  for (let i = 0; i < bytes.length; i += size) p.push(bytes.subarray(i, i + size));
  return p.result();
}

/** The same answer whatever the chunking: whole, and split at every byte. */
function learns(text: string, expected: Probed): void {
  for (const size of [Infinity, 1, 2, 3, 7]) assert.deepEqual(probe(text, size), expected, text);
}

test('the id of an answer, wherever it is among the top-level keys', () => {
  learns('{"jsonrpc":"2.0","id":5,"result":{"text":"x"}}', { kind: 'answer', id: 5 });
  learns('{"result":{"text":"x"},"jsonrpc":"2.0","id":"mcpctl-4"}', {
    kind: 'answer',
    id: 'mcpctl-4',
  });
  learns('{"result":{},"id":7,"jsonrpc":"2.0"}', { kind: 'answer', id: 7 });
  learns(' { "error" : { "code" : 1 } , "id" : -1.5e2 } ', { kind: 'answer', id: -150 });
  learns('{"id":"a\\"b\\u00e9"}', { kind: 'answer', id: 'a"bé' });
});

test('ids elsewhere do not count: nested, inside strings, after escapes', () => {
  const tricky = [
    '{"result":{"id":99,"list":[{"id":1},["id",2]],',
    '"text":"he said \\"id\\":3, \\\\","more":"\\\\\\"id\\":4"},',
    '"jsonrpc":"2.0","id":"mcpctl-2"}',
  ].join('');
  learns(tricky, { kind: 'answer', id: 'mcpctl-2' });
  learns('{"result":{"id":99},"text":"\\"id\\":3"}', { kind: 'unknown' });
});

test('requests and notifications are told from answers', () => {
  learns('{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"id":9}}', {
    kind: 'request',
    id: 3,
    method: 'sampling/createMessage',
  });
  learns('{"params":{"id":4},"method":"notifications/message","jsonrpc":"2.0"}', {
    kind: 'notification',
    method: 'notifications/message',
  });
  learns('{"method":7,"params":{}}', { kind: 'notification' });
});

test('what is no id leaves the message unidentified', () => {
  for (const text of [
    '{"id":null,"error":{}}',
    '{"id":{"x":1},"result":{}}',
    '{"id":[1],"result":{}}',
    '{"id":true,"result":{}}',
    `{"id":"${'x'.repeat(MAX_CAPTURE + 1)}","result":{}}`,
    '{"\\u0069d":1,"result":{}}',
    '["id",1]',
    'garbage "id":1',
    '',
  ])
    learns(text, { kind: 'unknown' });
});

test('a message cut short gives what was learnt', () => {
  learns('{"jsonrpc":"2.0","id":12,"result":{"text":"abc', { kind: 'answer', id: 12 });
  learns('{"jsonrpc":"2.0","id":12', { kind: 'answer', id: 12 });
  learns('{"jsonrpc":"2.0","id":"ab', { kind: 'unknown' });
});
