import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { until } from '../../testing/until.js';
import type { RpcCallError } from './client.js';
import {
  AnswerTooLargeError,
  ConnectionLostError,
  DaemonUnavailableError,
  RpcClient,
  connectClient,
} from './client.js';
import { LineReader, RpcCodes, RpcError } from './protocol.js';
import { method, type MethodTable } from './methods.js';
import { RpcServer } from './server.js';
import { tempDir } from '../../testing/temp-dir.js';

const temp = tempDir('mcpctl-rpc-');
const root = temp.path;
after(temp.remove);
let n = 0;
const sockPath = () => path.join(root, `s${n++}.sock`);

class Boom extends Error {}

function methods(closed: string[]): MethodTable {
  return {
    add: method(z.object({ a: z.number(), b: z.number() }), 'adds', (p) => p.a + p.b),
    fail: method(z.object({}), 'fails on purpose', () => {
      throw new RpcError(RpcCodes.NotFound, 'no such thing');
    }),
    boom: method(z.object({}), 'throws a domain error', () => {
      throw new Boom('mapped');
    }),
    subscribe: method(
      z.object({ count: z.number().int() }),
      'notifies after the reply',
      (p, call) => {
        call.conn.onClose(() => void closed.push(`conn ${call.conn.id}`));
        call.afterReply(() => {
          for (let i = 0; i < p.count; i++) call.conn.notify('tick', { i });
        });
        return { ok: true };
      },
    ),
  };
}

async function started(closed: string[] = []) {
  const server = new RpcServer({
    methods: methods(closed),
    mapError: (err) =>
      err instanceof Boom ? new RpcError(RpcCodes.NotGated, err.message) : undefined,
  });
  const p = sockPath();
  await server.listen(p);
  return { server, p };
}

describe('JSON-RPC over the Unix socket', () => {
  it('calls, errors with codes, validates params, maps domain errors', async () => {
    const { server, p } = await started();
    assert.equal(statSync(p).mode & 0o777, 0o600);
    const client = await connectClient(p);
    assert.equal(await client.call('add', { a: 2, b: 3 }), 5);
    await assert.rejects(
      client.call('add', { a: 'x' }),
      (e: RpcCallError) => e.code === RpcCodes.InvalidParams && /a:/.test(e.message),
    );
    await assert.rejects(
      client.call('nope'),
      (e: RpcCallError) => e.code === RpcCodes.MethodNotFound,
    );
    await assert.rejects(
      client.call('fail'),
      (e: RpcCallError) => e.code === RpcCodes.NotFound && e.message === 'no such thing',
    );
    await assert.rejects(client.call('boom'), (e: RpcCallError) => e.code === RpcCodes.NotGated);
    await assert.rejects(
      client.call('toString'),
      (e: RpcCallError) => e.code === RpcCodes.MethodNotFound,
    );
    await client.close();
    await server.close();
    assert.equal(existsSync(p), false, 'socket removed on close');
  });

  it('notifications follow the reply that set them up on the wire; close hooks run once', async () => {
    const closed: string[] = [];
    const { server, p } = await started(closed);
    const raw = connect(p);
    const reader = new LineReader();
    const lines: string[] = [];
    raw.on('data', (c: Buffer) => lines.push(...reader.push(c)));
    await new Promise((r) => raw.once('connect', r));
    raw.write('{"jsonrpc":"2.0","id":7,"method":"subscribe","params":{"count":3}}\n');
    await until('four lines', () => lines.length >= 4);
    assert.deepEqual(lines, [
      '{"jsonrpc":"2.0","id":7,"result":{"ok":true}}',
      '{"jsonrpc":"2.0","method":"tick","params":{"i":0}}',
      '{"jsonrpc":"2.0","method":"tick","params":{"i":1}}',
      '{"jsonrpc":"2.0","method":"tick","params":{"i":2}}',
    ]);
    const client = await connectClient(p);
    const ticks: number[] = [];
    client.on('tick', (params) => ticks.push((params as { i: number }).i));
    await client.call('subscribe', { count: 2 });
    await until('two ticks', () => ticks.length >= 2);
    assert.deepEqual(ticks, [0, 1]);
    raw.destroy();
    await client.close();
    await until('two connections closed', () => closed.length >= 2);
    assert.equal(closed.length, 2);
    await server.close();
  });

  it('answers garbage, batches and notifications per JSON-RPC 2.0', async () => {
    const { server, p } = await started();
    const raw = connect(p);
    const lines: unknown[] = [];
    const reader = new LineReader();
    raw.on('data', (c: Buffer) =>
      lines.push(...reader.push(c).map((l) => JSON.parse(l) as unknown)),
    );
    await new Promise((r) => raw.once('connect', r));
    raw.write('not json\n');
    raw.write('{"jsonrpc":"2.0","method":"add","params":{"a":1,"b":1}}\n'); // notification: no reply
    raw.write(
      '[{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}},{"jsonrpc":"2.0","id":2,"method":"x"}]\n',
    );
    raw.write('{"id":3,"method":"add"}\n');
    await until('three answers', () => lines.length >= 3);
    // A notification gets no answer: give it the time a wrong answer would need to show.
    await new Promise((r) => setTimeout(r, 50));
    // Responses may come in any order (each is written when its call finishes).
    const key = (v: unknown) => JSON.stringify(v);
    assert.deepEqual(
      lines.map(key).sort(),
      [
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: RpcCodes.ParseError, message: 'parse error: not valid JSON' },
        },
        [
          { jsonrpc: '2.0', id: 1, result: 3 },
          {
            jsonrpc: '2.0',
            id: 2,
            error: { code: RpcCodes.MethodNotFound, message: 'no method x' },
          },
        ],
        {
          jsonrpc: '2.0',
          id: 3,
          error: { code: RpcCodes.InvalidRequest, message: 'not a JSON-RPC 2.0 request' },
        },
      ]
        .map(key)
        .sort(),
    );
    raw.destroy();
    await server.close();
  });

  it('a client sees no daemon, and a daemon that goes away mid-call', async () => {
    await assert.rejects(connectClient(path.join(root, 'missing.sock')), DaemonUnavailableError);
    const hang = new RpcServer({
      methods: { wait: method(z.object({}), 'never answers', () => new Promise(() => undefined)) },
    });
    const p = sockPath();
    await hang.listen(p);
    const client = await connectClient(p);
    const pending = assert.rejects(client.call('wait'), ConnectionLostError);
    await hang.close();
    await pending;
  });

  it('calls wait for readiness', async () => {
    let ready: () => void = () => undefined;
    const server = new RpcServer({
      methods: methods([]),
      ready: new Promise<void>((r) => (ready = r)),
    });
    const p = sockPath();
    await server.listen(p);
    const client = await connectClient(p);
    let answered = false;
    const call = client.call('add', { a: 1, b: 1 }).then((v) => ((answered = true), v));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false);
    ready();
    assert.equal(await call, 2);
    await client.close();
    await server.close();
  });

  it('LineReader splits across chunks and refuses an endless line', () => {
    const r = new LineReader(10);
    assert.deepEqual(r.push(Buffer.from('ab')), []);
    assert.deepEqual(r.push(Buffer.from('c\nde\nf')), ['abc', 'de']);
    assert.deepEqual(r.push(Buffer.from('\n')), ['f']);
    assert.throws(() => r.push(Buffer.from('x'.repeat(11))), /longer than/);
  });
});

describe('bounded answers (issue 13, finding 3)', () => {
  /** A raw connection that collects parsed lines and notices its end. */
  async function raw(p: string) {
    const socket = connect(p);
    const lines: unknown[] = [];
    const reader = new LineReader(64 * 1024 * 1024);
    let closed = false;
    socket.on('data', (c: Buffer) =>
      lines.push(...reader.push(c).map((l) => JSON.parse(l) as unknown)),
    );
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    await new Promise((r) => socket.once('connect', r));
    return { socket, lines, isClosed: () => closed };
  }

  let calls = 0;
  const big: MethodTable = {
    count: method(z.object({}), 'counts its calls', () => ++calls),
    big: method(z.object({ n: z.number().int() }), 'an answer of n bytes', (p) => 'x'.repeat(p.n)),
    unencodable: method(z.object({}), 'an answer JSON cannot hold', () => ({ n: 1n })),
    huge: method(z.object({}), 'an answer past the string limit', () => ({
      toJSON() {
        throw new RangeError('Invalid string length');
      },
    })),
    badNotify: method(z.object({}), 'a notification that cannot be encoded', (_p, call) => {
      call.afterReply(() => call.conn.notify('bad', { n: 1n }));
      return 'ok';
    }),
  };

  it('refuses a batch past maxBatch before running any of it', async () => {
    const server = new RpcServer({ methods: big, limits: { maxBatch: 3 } });
    const p = sockPath();
    await server.listen(p);
    const c = await raw(p);
    calls = 0;
    const req = (id: number) => ({ jsonrpc: '2.0', id, method: 'count' });
    c.socket.write(`${JSON.stringify([req(1), req(2), req(3), req(4)])}\n`);
    c.socket.write(`${JSON.stringify([req(5), req(6), req(7)])}\n`);
    await until('two answers', () => c.lines.length >= 2);
    const [refused, answered] = c.lines as [
      { id: unknown; error: { code: number; message: string } },
      unknown[],
    ];
    assert.equal(refused.id, null);
    assert.equal(refused.error.code, RpcCodes.InvalidRequest);
    assert.match(refused.error.message, /batch of 4 requests; at most 3/);
    assert.equal(answered.length, 3);
    assert.equal(calls, 3, 'nothing of the refused batch ran');
    c.socket.destroy();
    await server.close();
  });

  it('an answer too large or unencodable becomes an error; the connection and server go on', async () => {
    const server = new RpcServer({ methods: big, limits: { maxResponseBytes: 1000 } });
    const p = sockPath();
    await server.listen(p);
    const client = await connectClient(p);
    assert.equal(await client.call('big', { n: 10 }), 'x'.repeat(10));
    for (const name of ['huge', 'big'])
      await assert.rejects(
        client.call(name, { n: 5000 }),
        (e: RpcCallError) =>
          e.code === RpcCodes.LimitExceeded && /limit of 1000 bytes; ask for less/.test(e.message),
        name,
      );
    await assert.rejects(
      client.call('unencodable'),
      (e: RpcCallError) => e.code === RpcCodes.InternalError && /cannot be encoded/.test(e.message),
    );
    // A batch keeps the answers that fit and replaces the rest.
    const c = await raw(p);
    c.socket.write(
      `${JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'big', params: { n: 400 } })))}\n`,
    );
    await until('the answer', () => c.lines.length >= 1);
    const batch = c.lines[0] as Array<{ id: number; result?: string; error?: { code: number } }>;
    assert.deepEqual(
      batch.map((r) => [r.id, r.result?.length ?? r.error?.code]),
      [
        [1, 400],
        [2, 400],
        [3, RpcCodes.LimitExceeded],
      ],
    );
    assert.equal(await client.call('big', { n: 10 }), 'x'.repeat(10), 'still answering');
    c.socket.destroy();
    await client.close();
    await server.close();
  });

  it('a notification that cannot be sent closes only its own connection', async () => {
    const server = new RpcServer({ methods: big });
    const p = sockPath();
    await server.listen(p);
    const victim = await raw(p);
    const other = await connectClient(p);
    victim.socket.write('{"jsonrpc":"2.0","id":1,"method":"badNotify"}\n');
    await until('the victim to be closed', () => victim.isClosed());
    assert.deepEqual(victim.lines, [{ jsonrpc: '2.0', id: 1, result: 'ok' }]);
    assert.equal(await other.call('big', { n: 3 }), 'xxx');
    await other.close();
    await server.close();
  });

  it('refuses an id that is not a string, number or null, without running the method (finding 15)', async () => {
    const server = new RpcServer({ methods: big });
    const p = sockPath();
    await server.listen(p);
    const c = await raw(p);
    calls = 0;
    for (const id of ['{"a":1}', '[1]', 'true'])
      c.socket.write(`{"jsonrpc":"2.0","id":${id},"method":"count"}\n`);
    c.socket.write('{"jsonrpc":"2.0","id":null,"method":"count"}\n');
    await until('four answers', () => c.lines.length >= 4);
    const invalid = {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: RpcCodes.InvalidRequest,
        message: 'invalid request: id must be a string, a number or null',
      },
    };
    assert.deepEqual(
      c.lines.map((l) => JSON.stringify(l)).sort(),
      [invalid, invalid, invalid, { jsonrpc: '2.0', id: null, result: 1 }]
        .map((l) => JSON.stringify(l))
        .sort(),
    );
    assert.equal(calls, 1, 'only the request with a valid id ran');
    c.socket.destroy();
    await server.close();
  });
});

describe('the client reads large answers and survives oversized ones (finding 13)', () => {
  /** A fake daemon answering every request with `answer(id)` as one line. */
  async function fakeDaemon(answer: (id: number) => string) {
    const server = createServer((socket) => {
      const reader = new LineReader();
      socket.on('data', (c: Buffer) => {
        for (const line of reader.push(c)) {
          const { id } = JSON.parse(line) as { id: number };
          socket.write(`${answer(id)}\n`);
        }
      });
      socket.on('error', () => undefined);
    });
    const p = sockPath();
    await new Promise<void>((r) => server.listen(p, r));
    return { p, close: () => new Promise<void>((r) => server.close(() => r())) };
  }

  it('a 20 MB answer (past the old 16 MiB line limit) is read', async () => {
    const big = 'x'.repeat(20 * 1024 * 1024);
    const fake = await fakeDaemon((id) => JSON.stringify({ jsonrpc: '2.0', id, result: big }));
    const client = await connectClient(fake.p);
    assert.equal((await client.call<string>('list')).length, big.length);
    await client.close();
    await fake.close();
  });

  it('a line past the client limit fails the calls, never throws out of the socket', async () => {
    const fake = await fakeDaemon((id) =>
      JSON.stringify({ jsonrpc: '2.0', id, result: 'y'.repeat(5000) }),
    );
    const socket = connect(fake.p);
    await new Promise((r) => socket.once('connect', r));
    const client = new RpcClient(socket, { maxLineBytes: 1000 });
    await assert.rejects(
      client.call('list'),
      (e: unknown) => e instanceof AnswerTooLargeError && /longer than 1000 bytes/.test(String(e)),
    );
    await client.closed;
    await fake.close();
  });
});
