/**
 * e2e attack: a hostile repository whose `.mcp.json` is a FIFO (or another non-regular file).
 *
 * Reading a FIFO blocks until a writer comes; in a thread of libuv's small pool that is forever,
 * and four of them freeze every file operation of the daemon. The daemon must refuse such a
 * file unread (`ConfigValid=False`, "not a regular file") and keep serving everyone else.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SessionList } from '../cli/objects.js';
import { connectClient, type RpcClient } from '../cli/rpc/client.js';
import { TestEnv, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };
/** A CLI call that hangs is the failure this file is about: fail it long before the test. */
const CLI_TIMEOUT = { timeoutMs: 20_000 };

describe('security: non-regular config files (e2e)', () => {
  let env: TestEnv;
  const clients: RpcClient[] = [];
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await env.cleanup();
  });

  it(
    'four workspaces with a FIFO .mcp.json neither freeze the daemon nor each other',
    T,
    async () => {
      await env.startDaemon();
      const fifoWorkspaces: string[] = [];
      for (let i = 0; i < 4; i++) {
        const ws = path.join(env.root, `fifo${i}`);
        mkdirSync(ws);
        execFileSync('mkfifo', [path.join(ws, '.mcp.json')]);
        fifoWorkspaces.push(realpathSync(ws));
      }
      // Each opened as an agent session would be; the answers are not awaited here: on a daemon
      // that blocks on the FIFO they never come, and the assertions below say so.
      const opens = fifoWorkspaces.map(async (workspace) => {
        const client = await connectClient(env.socket);
        clients.push(client);
        return client.call<{ sessionId: string }>('session.open', { workspace });
      });
      for (const open of opens) open.catch(() => undefined);

      const normal = path.join(env.root, 'normal');
      env.write(path.join(normal, '.mcp.json'), { mcpServers: {} });
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const servers = await env.cli(
        ['get', 'servers', '-o', 'json', '--workspace', normal],
        CLI_TIMEOUT,
      );
      assert.equal(servers.code, 0, `get servers answers: ${servers.stderr}`);
      await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready in the default session');

      await Promise.all(opens);
      const sessions = await until('the four FIFO sessions listed', async () => {
        const r = await env.cli(['get', 'sessions', '-o', 'json'], CLI_TIMEOUT);
        if (r.code !== 0) throw new Error(r.stderr);
        const list = JSON.parse(r.stdout) as SessionList;
        const fifo = list.items.filter((s) => fifoWorkspaces.includes(s.spec.workspace));
        return fifo.length === 4 ? fifo : undefined;
      });
      for (const s of sessions) {
        const valid = s.status.conditions.find((c) => c.type === 'ConfigValid');
        assert.equal(valid?.status, 'False', `${s.spec.workspace}: ConfigValid`);
        assert.match(valid?.message ?? '', /\.mcp\.json/);
        assert.match(valid?.message ?? '', /not a regular file/);
      }
      const table = await env.cli(['get', 'sessions'], CLI_TIMEOUT);
      assert.equal(table.code, 0, table.stderr);

      const stop = await env.cli(['stop'], CLI_TIMEOUT);
      assert.equal(stop.code, 0, `stop works: ${stop.stderr}`);
    },
  );
});
