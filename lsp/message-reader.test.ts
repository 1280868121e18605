import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { Message } from 'vscode-languageserver-protocol/node';
import { LIMIT_EXCEEDED_CODE } from '../api/index.js';
import {
  BoundedMessageReader,
  MAX_HEADER_BYTES,
  MAX_NOTES,
  probeMessage,
} from './message-reader.js';

const frame = (message: object): Buffer => {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
};

const ids = (messages: Message[]): unknown[] =>
  messages.map((m) => (m as unknown as { id: unknown }).id);

function reader(maxMessageBytes = 1024) {
  const stream = new PassThrough();
  const messages: Message[] = [];
  const notes: string[] = [];
  const r = new BoundedMessageReader(stream, {
    name: 'srv',
    maxMessageBytes,
    onNote: (n) => notes.push(n),
  });
  r.listen((m) => messages.push(m));
  const write = (...parts: Array<Buffer | string>): void => {
    for (const p of parts) stream.write(p);
  };
  return { stream, messages, notes, write, reader: r };
}

test('frames split anywhere, even byte by byte, arrive whole and in order', () => {
  const { messages, write } = reader();
  const bytes = Buffer.concat([
    frame({ jsonrpc: '2.0', id: 1, result: 'é😀' }),
    frame({ jsonrpc: '2.0', method: 'x', params: { a: [1, 2] } }),
  ]);
  for (let i = 0; i < bytes.length; i += 1) write(bytes.subarray(i, i + 1));
  assert.deepEqual(messages, [
    { jsonrpc: '2.0', id: 1, result: 'é😀' },
    { jsonrpc: '2.0', method: 'x', params: { a: [1, 2] } },
  ]);
});

test('garbage before and between frames is skipped and noted', () => {
  const { messages, notes, write } = reader();
  write('server starting...\n', frame({ jsonrpc: '2.0', id: 1, result: 1 }), 'debug: hi\r\n');
  write(frame({ jsonrpc: '2.0', id: 2, result: 2 }));
  assert.deepEqual(ids(messages), [1, 2]);
  assert.match(notes[0], /"srv" wrote 19 bytes that are not LSP: server starting\.\.\./);
  assert.match(notes[1], /wrote 11 bytes that are not LSP: debug: hi$/);
  assert.equal(notes.length, 2);
});

test('a bad header, a body that is not JSON, JSON that is no message: dropped, the next one read', () => {
  const { messages, notes, write } = reader();
  write('Content-Length: lots\r\n\r\n', frame({ jsonrpc: '2.0', id: 1, result: 1 }));
  write('Content-Length: 5\r\n\r\n{oops', frame({ jsonrpc: '2.0', id: 2, result: 2 }));
  write('Content-Length: 3\r\n\r\n[1]', frame({ jsonrpc: '2.0', id: 3, result: 3 }));
  assert.deepEqual(ids(messages), [1, 2, 3]);
  assert.ok(notes.some((n) => /without a valid Content-Length/.test(n)));
  assert.ok(notes.some((n) => /not JSON \(5 bytes\)/.test(n)));
  assert.ok(notes.some((n) => /not a JSON-RPC message/.test(n)));
});

test('a stray line right before a header loses nothing', () => {
  const { messages, write } = reader();
  const good = frame({ jsonrpc: '2.0', id: 7, result: 'ok' });
  write('Content-Length: oops\n', good);
  assert.deepEqual(messages, [{ jsonrpc: '2.0', id: 7, result: 'ok' }]);
});

test('an oversized answer fails its request with a size error; the stream goes on', () => {
  const { messages, notes, write } = reader(100);
  write(frame({ jsonrpc: '2.0', id: 42, result: 'x'.repeat(500) }));
  write(frame({ jsonrpc: '2.0', id: 43, result: 'fine' }));
  const [error, next] = messages as unknown as Array<{
    id: number;
    error?: { code: number; message: string };
  }>;
  assert.equal(error?.id, 42);
  assert.equal(error?.error?.code, LIMIT_EXCEEDED_CODE);
  assert.match(
    error?.error?.message ?? '',
    /answer of language server "srv" exceeded the 100 B message limit \(it was 5\d\d B\)/,
  );
  assert.equal(next?.id, 43);
  assert.ok(notes.some((n) => /answer of "srv" to request 42 was dropped/.test(n)));
});

test('an oversized notification is dropped and noted', () => {
  const { messages, notes, write } = reader(100);
  write(
    frame({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: 'x'.repeat(500) }),
  );
  write(frame({ jsonrpc: '2.0', id: 1, result: 1 }));
  assert.deepEqual(messages, [{ jsonrpc: '2.0', id: 1, result: 1 }]);
  assert.ok(notes.some((n) => /a message of "srv" was dropped/.test(n)));
});

test('a header that never ends is given up after MAX_HEADER_BYTES, and reading goes on', () => {
  const { messages, notes, write } = reader();
  write('Content-Length: 10\r\nX-Junk: ' + 'y'.repeat(MAX_HEADER_BYTES * 2));
  write('\r\n', frame({ jsonrpc: '2.0', id: 9, result: 'after' }));
  assert.ok(notes.some((n) => /header longer than 8192 bytes/.test(n)));
  assert.deepEqual(messages, [{ jsonrpc: '2.0', id: 9, result: 'after' }]);
});

test('notes stop after MAX_NOTES, said once', () => {
  const { notes, write } = reader();
  for (let i = 0; i < MAX_NOTES + 10; i += 1) write('Content-Length: x\r\n\r\n');
  assert.equal(notes.length, MAX_NOTES + 1);
  assert.match(notes.at(-1)!, /more notes about the output of "srv" are not shown/);
});

test('the end of the stream closes the reader', async () => {
  const { stream, reader: r } = reader();
  const closed = new Promise<void>((resolve) => r.onClose(() => resolve()));
  stream.end();
  stream.destroy();
  await closed;
});

test('probeMessage reads only the top level, up to result or error', () => {
  assert.deepEqual(probeMessage('{"jsonrpc":"2.0","id":5,"result":{"id":9'), {
    kind: 'response',
    id: 5,
  });
  assert.deepEqual(probeMessage(' { "id" : "a-1" , "jsonrpc":"2.0", "error": {'), {
    kind: 'response',
    id: 'a-1',
  });
  assert.deepEqual(probeMessage('{"jsonrpc":"2.0","result":{"id":9},"id":5}'), { kind: 'other' });
  assert.deepEqual(probeMessage('{"jsonrpc":"2.0","method":"x","params":{"id":1}}'), {
    kind: 'other',
  });
  assert.deepEqual(probeMessage('{"jsonrpc":"2.0","id":3,"method":"x"'), { kind: 'other' });
  assert.deepEqual(probeMessage('not json'), { kind: 'other' });
});
