import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { until } from '../../testing/until.js';
import { ConnectionLostError, connectClient } from './client.js';
import { FrameBudget, FrameRefused, InboundFrames } from './inbound.js';
import { LineReader, RpcCodes } from './protocol.js';
import { method, type MethodTable } from './methods.js';
import { RpcServer } from './server.js';
import { tempDir } from '../../testing/temp-dir.js';

const temp = tempDir('mcpctl-inbound-');
const root = temp.path;
after(temp.remove);
let n = 0;
const sockPath = () => path.join(root, `s${n++}.sock`);

const methods: MethodTable = {
  echo: method(z.object({ text: z.string() }), 'echoes', (p) => p.text.length),
};

interface Raw {
  readonly socket: Socket;
  readonly lines: Array<{
    id: unknown;
    result?: unknown;
    error?: { code: number; message: string };
  }>;
  isClosed(): boolean;
}

async function raw(p: string): Promise<Raw> {
  const socket = connect(p);
  const lines: Raw['lines'] = [];
  const reader = new LineReader();
  let closed = false;
  socket.on('data', (c: Buffer) =>
    lines.push(...reader.push(c).map((l) => JSON.parse(l) as never)),
  );
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  return { socket, lines, isClosed: () => closed };
}

/** The start of a request whose padding is still on its way. */
const partial = (id: number, bytes: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"echo","params":{"text":"${'x'.repeat(bytes)}`;

describe('unfinished messages are bounded across connections (issue 13, finding 11)', () => {
  it('LineReader counts what it holds, and holds no more than it counts', () => {
    const r = new LineReader(100);
    assert.deepEqual(r.push(Buffer.from('abc\nde')), ['abc']);
    assert.equal(r.bufferedBytes, 2);
    r.clear();
    assert.equal(r.bufferedBytes, 0);
    assert.deepEqual(r.push(Buffer.from('f\n')), ['f']);
  });

  it('InboundFrames share one budget and give their bytes back', () => {
    const budget = new FrameBudget(100);
    const limits = { maxLineBytes: 80, idleFrameMs: 60_000 };
    const a = new InboundFrames(budget, limits, () => undefined);
    const b = new InboundFrames(budget, limits, () => undefined);
    a.push(Buffer.alloc(60, 'a'));
    assert.equal(budget.used, 60);
    assert.throws(
      () => b.push(Buffer.alloc(50, 'b')),
      (e: unknown) => e instanceof FrameRefused && e.code === RpcCodes.LimitExceeded,
    );
    assert.equal(budget.used, 60, 'the refused one gave its bytes back');
    assert.deepEqual(a.push(Buffer.from('\n')), ['a'.repeat(60)]);
    assert.equal(budget.used, 0);
    assert.throws(
      () => a.push(Buffer.alloc(81, 'a')),
      (e: unknown) => e instanceof FrameRefused && e.code === RpcCodes.InvalidRequest,
    );
    assert.equal(budget.used, 0);
    a.dispose();
    b.dispose();
  });

  it('the connection that would pass the shared budget is refused; the others go on', async () => {
    const server = new RpcServer({
      methods,
      limits: { maxBufferedBytes: 100_000, maxLineBytes: 80_000 },
    });
    const p = sockPath();
    await server.listen(p);
    const a = await raw(p);
    a.socket.write(partial(1, 60_000));
    await until('the first partial message', () => server.bufferedBytes > 60_000);
    const b = await raw(p);
    b.socket.write(partial(2, 60_000));
    await until('the second connection to be refused', () => b.isClosed());
    assert.equal(b.lines[0]?.id, null);
    assert.equal(b.lines[0]?.error?.code, RpcCodes.LimitExceeded);
    assert.match(b.lines[0]?.error?.message ?? '', /unfinished messages, past its limit of 100000/);
    assert.ok(server.bufferedBytes <= 100_000, `held ${server.bufferedBytes}`);
    a.socket.write('"}}\n');
    await until('the first request to be answered', () => a.lines.length > 0);
    assert.deepEqual(a.lines[0], { jsonrpc: '2.0', id: 1, result: 60_000 });
    assert.equal(server.bufferedBytes, 0);
    a.socket.destroy();
    await server.close();
  });

  it('a stalled unfinished message is timed out; an idle connection without one is not', async () => {
    const server = new RpcServer({ methods, limits: { idleFrameMs: 300 } });
    const p = sockPath();
    await server.listen(p);
    const quiet = await connectClient(p);
    const stalled = await raw(p);
    stalled.socket.write(partial(1, 10));
    await until('the stalled connection to be closed', () => stalled.isClosed());
    assert.equal(stalled.lines[0]?.error?.code, RpcCodes.LimitExceeded);
    assert.match(stalled.lines[0]?.error?.message ?? '', /no new byte for 300 ms/);
    assert.equal(server.bufferedBytes, 0);
    // Connected before the stalled one and silent since: still served.
    assert.equal(await quiet.call('echo', { text: 'hi' }), 2);
    await quiet.close();
    await server.close();
  });

  it('connections past the limit are told so and closed; room frees when one leaves', async () => {
    const server = new RpcServer({ methods, limits: { maxConnections: 2 } });
    const p = sockPath();
    await server.listen(p);
    const first = await connectClient(p);
    const second = await connectClient(p);
    await until('two connections', () => server.connectionCount === 2);
    const third = await connectClient(p);
    await assert.rejects(
      third.call('echo', { text: 'x' }),
      (e: unknown) =>
        e instanceof ConnectionLostError && /2 connections open, its limit/.test(e.message),
    );
    await first.close();
    await until('the first to leave', () => server.connectionCount === 1);
    const fourth = await connectClient(p);
    assert.equal(await fourth.call('echo', { text: 'abc' }), 3);
    await Promise.all([second.close(), fourth.close(), third.close()]);
    await server.close();
  });
});
