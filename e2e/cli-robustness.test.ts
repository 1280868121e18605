/**
 * e2e: the CLI and serve facing a daemon or a workspace that is not what they expect (issue
 * 22) — a regular file given as the workspace, a daemon that does not answer, an older daemon,
 * serves racing to start one, a daemon whose socket file was deleted.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient } from '../cli/rpc/client.js';
import { TestEnv, isAlive, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

/**
 * A daemon of an mcpctl older than `gateway.open` at `socket`: it answers every request with
 * "no such method", as the daemon's method table does for a name it does not know.
 */
async function olderDaemon(socket: string): Promise<Server> {
  mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const server = createServer((conn) => {
    conn.on('error', () => undefined);
    let buffered = '';
    conn.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const request = JSON.parse(buffered.slice(0, nl)) as { id: number; method: string };
        buffered = buffered.slice(nl + 1);
        conn.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `no method ${request.method}` } })}\n`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return server;
}

describe('mcpctl robustness (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('a regular file is refused as the workspace, by every command', T, async () => {
    await env.startDaemon();
    const file = path.join(env.root, 'not-a-dir');
    writeFileSync(file, '{}\n');
    for (const args of [
      ['get', 'servers'],
      ['reload'],
      ['serve'],
      ['daemon', '--socket', path.join(env.root, 'other', 'd.sock')],
    ]) {
      const r = await env.cli([...args, '--workspace', file]);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /workspace .*not-a-dir is not a directory; pass an existing one/);
      assert.equal(r.stdout, '');
    }
  });

  it('serve and commands meet an older daemon with "run mcpctl stop"', T, async () => {
    const old = await olderDaemon(env.socket);
    try {
      const r = await env.cli(['serve'], { timeoutMs: 30_000 });
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /the running mcpctl daemon at .* is older than this mcpctl \(.*\): run `mcpctl stop`/,
      );
      assert.equal(r.stdout, '', 'nothing but MCP on stdout');
      // A command whose method that daemon does not know says the same.
      const get = await env.cli(['get', 'servers'], { timeoutMs: 30_000 });
      assert.equal(get.code, 1, get.stderr);
      assert.match(get.stderr, /is older than this mcpctl .*: run `mcpctl stop`/);
    } finally {
      await new Promise<void>((resolve) => old.close(() => resolve()));
    }
  });

  it('a stopped daemon: commands and serve give up with what to do, not hang', T, async () => {
    const daemon = await env.startDaemon();
    process.kill(daemon.pid, 'SIGSTOP');
    try {
      const says = new RegExp(
        `the mcpctl daemon \\(pid ${daemon.pid}\\) at ${env.socket} does not answer.*it may be stopped or busy.*kill -CONT ${daemon.pid}`,
      );
      // The setting by environment and by flag; killed by the harness if it hangs.
      const byEnv = await env.cli(['get', 'servers'], {
        env: { MCPCTL_ANSWER_TIMEOUT: '1s' },
        timeoutMs: 30_000,
      });
      assert.equal(byEnv.signal, null, 'it ended by itself');
      assert.equal(byEnv.code, 1, byEnv.stderr);
      assert.match(byEnv.stderr, says);
      assert.equal(byEnv.stdout, '');
      const byFlag = await env.cli(['--answer-timeout', '1s', 'reload'], { timeoutMs: 30_000 });
      assert.equal(byFlag.code, 1, byFlag.stderr);
      assert.match(byFlag.stderr, says);

      // serve: the agent gets no MCP, serve exits 1 saying why.
      const serve = await env.cli(['serve'], {
        env: { MCPCTL_ANSWER_TIMEOUT: '1s' },
        timeoutMs: 30_000,
      });
      assert.equal(serve.signal, null, 'serve ended by itself');
      assert.equal(serve.code, 1, serve.stderr);
      assert.match(serve.stderr, says);
      assert.equal(serve.stdout, '', 'nothing but MCP on stdout');
    } finally {
      process.kill(daemon.pid, 'SIGCONT');
    }
    // Resumed, it answers again: nothing was broken by the clients that gave up.
    const after = await env.cli(['get', 'servers'], { timeoutMs: 30_000 });
    assert.equal(after.code, 0, after.stderr);
  });

  it(
    'serves racing to start a daemon: only the one whose daemon stays says "started"',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const agents = [env.serveTransport(), env.serveTransport()].map(({ transport, stderr }) => ({
        transport,
        stderr,
        client: new Client({ name: 'e2e-agent', version: '1.0.0' }, { capabilities: {} }),
      }));
      try {
        // Started at once: both find no daemon and start one; one daemon wins, both use it.
        await Promise.all(agents.map((a) => a.client.connect(a.transport)));
        for (const a of agents) env.trackPid(a.transport.pid ?? undefined);
        const rpc = await connectClient(env.socket);
        const { pid } = await rpc.call<{ pid: number }>('daemon.status');
        await rpc.close();
        const claims = agents.flatMap((a) => [
          ...a.stderr().matchAll(/started an mcpctl daemon \(pid (\d+)\)/g),
        ]);
        assert.deepEqual(
          claims.map((m) => Number(m[1])),
          [pid],
          `one serve says it started the daemon that runs; stderr: ${agents.map((a) => a.stderr()).join(' | ')}`,
        );
      } finally {
        for (const a of agents) await a.client.close().catch(() => undefined);
        await env.cli(['stop']);
      }
    },
  );

  it('a deleted socket file is made again; the servers keep running', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    await env.startDaemon();
    const before = await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    const inode = statSync(env.socket).ino;
    rmSync(env.socket);
    await until(
      'the daemon to make its socket file again',
      () => existsSync(env.socket) && statSync(env.socket).ino !== inode,
    );
    assert.equal(statSync(env.socket).mode & 0o777, 0o600, 'private as before');
    const after = await env.servers();
    assert.equal(after.get('fx')?.status.pid, before.get('fx')?.status.pid, 'same process');

    // The whole directory, too.
    rmSync(path.dirname(env.socket), { recursive: true });
    await until('socket and directory made again', () => existsSync(env.socket));
    assert.equal(statSync(path.dirname(env.socket)).mode & 0o777, 0o700);
    assert.equal((await env.servers()).get('fx')?.status.pid, before.get('fx')?.status.pid);
  });

  it('a socket path taken by something else stops the daemon and its servers', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    const daemon = await env.startDaemon();
    const fxPid = (await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready')).get('fx')
      ?.status.pid;
    assert.ok(fxPid);
    // Put over it in one step, as another daemon's socket would be: never missing meanwhile.
    const other = path.join(path.dirname(env.socket), 'other');
    writeFileSync(other, 'not yours\n');
    renameSync(other, env.socket);
    const exit = await daemon.exited;
    assert.equal(exit.code, 0, daemon.stderr());
    assert.match(daemon.stderr(), /socket path .* now holds something else/);
    assert.equal(isAlive(fxPid), false, 'its servers are gone');
    assert.equal(readFileSync(env.socket, 'utf8'), 'not yours\n', 'what took the path stays');
  });
});
