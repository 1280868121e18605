import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioLineTransport } from './stdio-transport.js';

const T = { timeout: 5000 };

function pair(maxLineBytes?: number, maxSendBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioLineTransport(stdin, stdout, maxLineBytes, maxSendBytes);
  const got: JSONRPCMessage[] = [];
  const written: unknown[] = [];
  let closed = 0;
  transport.onmessage = (m) => got.push(m);
  transport.onclose = () => (closed += 1);
  stdout.on('data', (c: Buffer) => {
    for (const line of c
      .toString()
      .split('\n')
      .filter((l) => l !== ''))
      written.push(JSON.parse(line));
  });
  return { stdin, transport, got, written, closed: () => closed };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('StdioLineTransport', () => {
  it('passes valid messages on (CRLF too) and answers invalid ones', T, async () => {
    const p = pair();
    await p.transport.start();
    p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n');
    p.stdin.write('{"jsonrpc":"2.0","id":true,"method":"ping"}\n{"jsonrpc":"2.0","method":"x"}\n');
    await tick();
    assert.deepEqual(p.got, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'x' },
    ]);
    assert.deepEqual(
      p.written.map((w) => {
        const e = w as { id: unknown; error: { code: number } };
        return [e.id, e.error.code];
      }),
      [[null, -32600]],
    );
    await p.transport.close();
    assert.equal(p.closed(), 1);
    await p.transport.close();
    assert.equal(p.closed(), 1, 'onclose fires once');
  });

  it('a line past the limit is answered -32600 and ends the connection', T, async () => {
    const p = pair(64);
    await p.transport.start();
    p.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(100)}"}\n`);
    await tick();
    await tick();
    assert.equal((p.written[0] as { error: { code: number } }).error.code, -32600);
    assert.equal(p.closed(), 1);
    assert.deepEqual(p.got, []);
  });

  it(
    'an answer past what the agent reads is its size error; other messages are not sent',
    T,
    async () => {
      const p = pair(undefined, 1024);
      await p.transport.start();
      const big = 'x'.repeat(2000);
      await p.transport.send({ jsonrpc: '2.0', id: 3, result: { big } });
      await assert.rejects(
        p.transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { big } }),
        /notifications\/message of 2\.0 KiB, over the 1 KiB message limit: not sent/,
      );
      await p.transport.send({ jsonrpc: '2.0', id: 4, result: {} });
      await tick();
      assert.deepEqual(p.written, [
        {
          jsonrpc: '2.0',
          id: 3,
          error: {
            code: -32005,
            message:
              'the answer to this request is 2.0 KiB, over the 1 KiB message limit; mcpctl dropped it: ask for less at a time',
          },
        },
        { jsonrpc: '2.0', id: 4, result: {} },
      ]);
      await p.transport.close();
    },
  );
});
