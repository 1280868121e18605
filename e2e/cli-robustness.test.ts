/**
 * e2e: the CLI and serve facing a daemon or a workspace that is not what they expect (issue
 * 22) — a regular file given as the workspace, a daemon that does not answer, an older daemon,
 * serves racing to start one, a daemon whose socket file was deleted.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv } from '../cli/testing/harness.js';

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
});
