import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idText, peekMessage } from './mcp-peek.js';

const peek = (text: string) => peekMessage(Buffer.from(text));

describe('peekMessage', () => {
  it('finds the top-level method and id, whatever the key order', () => {
    assert.deepEqual(
      peek('{"method":"tools/call","params":{"name":"a","id":9},"jsonrpc":"2.0","id":3}'),
      { response: false, method: 'tools/call', id: '3' },
    );
    assert.deepEqual(peek('{"jsonrpc":"2.0","id":"x-1","method":"ping"}'), {
      response: false,
      method: 'ping',
      id: '"x-1"',
    });
    assert.deepEqual(peek(' { "method" : "notifications/initialized" } '), {
      response: false,
      method: 'notifications/initialized',
    });
  });

  it('never takes a nested id, method or result for the message’s own', () => {
    const text = JSON.stringify({
      result: {
        items: [{ id: 1, method: 'x', result: {} }],
        text: 'a "quoted" \\ text with "id":5 and } and ]',
      },
      jsonrpc: '2.0',
      id: 12,
    });
    assert.deepEqual(peek(text), { response: true, id: '12' });
    assert.deepEqual(peek('{"error":{"code":1,"message":"m","data":{"id":2}},"id":null}'), {
      response: true,
    });
  });

  it('crosses long strings with escapes', () => {
    const long = `${'x'.repeat(100)}\\"${'y'.repeat(100)}\\\\`;
    assert.deepEqual(peek(`{"result":{"t":"${long}"},"id":1}`), { response: true, id: '1' });
  });

  it('gives undefined for what is not one JSON object', () => {
    for (const text of ['', 'not json', '[1]', '{"id":1', '{"id":1,}x', '{"a" 1}', '{"a":}'])
      assert.equal(peek(text), undefined, text);
  });

  it('reads only the given range', () => {
    const buf = Buffer.from('xx{"id":7,"result":{}}\nyy');
    assert.deepEqual(peekMessage(buf, 2, buf.length - 3), { response: true, id: '7' });
  });
});

describe('idText', () => {
  it('is one text per id as a JSON parser sees it', () => {
    assert.equal(idText('7'), '7');
    assert.equal(idText('7.0'), '7');
    assert.equal(idText('"a"'), '"a"');
    assert.equal(idText('"\\u0061"'), '"a"');
  });
});
