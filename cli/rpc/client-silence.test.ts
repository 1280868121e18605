/**
 * The client's bound on a silent daemon (issue 22, L1): a daemon that is stopped still has its
 * connections accepted by the kernel, so only silence tells it apart — and silence, not work,
 * is what is bounded.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { DaemonNotAnsweringError, connectClient } from './client.js';
import { method } from './methods.js';
import { RpcServer } from './server.js';
import { tempDir } from '../../testing/temp-dir.js';

const temp = tempDir('mcpctl-silence-');
const root = temp.path;
after(temp.remove);
let n = 0;
const sockPath = () => path.join(root, `s${n++}.sock`);

/** A daemon that answers `daemon.status` at once and `slow` after `slowMs`. */
async function liveDaemon(slowMs: number) {
  const server = new RpcServer({
    methods: {
      'daemon.status': method(z.object({}), 'status', () => ({ pid: process.pid })),
      slow: method(
        z.object({}),
        'answers late',
        () => new Promise((resolve) => setTimeout(() => resolve('done'), slowMs)),
      ),
      add: method(z.object({ a: z.number(), b: z.number() }), 'adds', (p) => p.a + p.b),
    },
  });
  const p = sockPath();
  await server.listen(p);
  return { server, p };
}

describe('RpcClient answerTimeoutMs', () => {
  it('gives up on a daemon that accepts but never says a word', { timeout: 20_000 }, async () => {
    const p = sockPath();
    const held: Socket[] = [];
    const mute = createServer((s) => void held.push(s)); // Like a stopped daemon's backlog.
    await new Promise<void>((resolve) => mute.listen(p, resolve));
    const client = await connectClient(p, 1000, { answerTimeoutMs: 200 });
    await assert.rejects(
      client.call('servers.list', {}),
      (e: Error) => e instanceof DaemonNotAnsweringError && e.waitedMs === 200,
    );
    await client.closed;
    for (const s of held) s.destroy();
    await new Promise<void>((resolve) => mute.close(() => resolve()));
  });

  it(
    'lets a live daemon take longer than the bound for one call',
    { timeout: 20_000 },
    async () => {
      const { server, p } = await liveDaemon(1200);
      const client = await connectClient(p, 1000, { answerTimeoutMs: 300 });
      assert.equal(await client.call('slow', {}), 'done');
      await client.close();
      await server.close();
    },
  );

  it(
    'bounds nothing while no call waits, and measures from the call on',
    { timeout: 20_000 },
    async () => {
      const { server, p } = await liveDaemon(0);
      const client = await connectClient(p, 1000, { answerTimeoutMs: 100 });
      let closed = false;
      void client.closed.then(() => (closed = true));
      // Idle (a watch waiting for events looks the same): several bounds of silence.
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(closed, false, 'an idle connection is kept');
      assert.equal(await client.call('add', { a: 1, b: 2 }), 3);
      await client.close();
      await server.close();
    },
  );
});
