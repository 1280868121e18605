/**
 * e2e (hardening #13, High 1): one workspace's agent must never get a server process that runs
 * in another workspace. A user-scope stdio server without `cwd` (or with a relative one) runs
 * where the session is; two sessions share its process only when it runs in the same place.
 *
 * The built daemon serves its own workspace; a second workspace's session is opened over the
 * socket (as `serve` does) and held for the test. The working directory of each server process
 * is read from /proc, the pid from `servers.list`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { McpServer, McpServerList } from '../api/index.js';
import type { DiffLine } from '../controller/reload-preview.js';
import { connectClient, type RpcClient } from '../cli/rpc/client.js';
import { TestEnv, isReady, untilObjects } from './harness.js';

const T = { timeout: 90_000 };

/** `servers.list` of one session, by name. */
async function serversOf(rpc: RpcClient, sessionId: string): Promise<Map<string, McpServer>> {
  const list = await rpc.call<McpServerList>('servers.list', { sessionId });
  return new Map(list.items.map((s) => [s.metadata.name, s]));
}

/** Waits until every name is Ready in the session; returns the servers. */
function untilReady(
  rpc: RpcClient,
  sessionId: string,
  names: readonly string[],
): Promise<Map<string, McpServer>> {
  return untilObjects(
    `${names.join(', ')} Ready in session ${sessionId}`,
    () => serversOf(rpc, sessionId),
    (servers) => names.every((n) => isReady(servers.get(n))),
    { label: 'servers', timeoutMs: 30_000 },
  );
}

function pidOf(servers: Map<string, McpServer>, name: string): number {
  const pid = servers.get(name)?.status.pid;
  assert.ok(typeof pid === 'number', `${name} has a pid`);
  return pid;
}

const cwdOf = (pid: number): string => readlinkSync(`/proc/${pid}/cwd`);

describe('security: a server process runs in one workspace only (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'two workspaces get two processes, each in its own workspace; one workspace still shares one',
    T,
    async () => {
      const ws1 = realpathSync(env.workspace);
      const ws2 = path.join(realpathSync(env.root), 'other-ws');
      for (const ws of [ws1, ws2]) mkdirSync(path.join(ws, 'sub'), { recursive: true });
      env.write(env.userSettingsPath, {
        mcpServers: {
          // The README's filesystem example: a path relative to where the server runs.
          plain: env.fixture('plain'),
          rel: { ...env.fixture('rel'), cwd: 'sub' },
          // An absolute cwd runs in one place whoever asks: sharing it is safe.
          pinned: { ...env.fixture('pinned'), cwd: realpathSync(env.root) },
        },
      });
      await env.startDaemon();
      const rpc = await connectClient(env.socket);
      try {
        const { sessionId: first } = await rpc.call<{ sessionId: string }>('session.open', {
          workspace: ws1,
        });
        // Another session of the SAME workspace (a ceiling makes it a session of its own).
        const { sessionId: sameWs } = await rpc.call<{ sessionId: string }>('session.open', {
          workspace: ws1,
          ceiling: ['plain', 'rel', 'pinned'],
        });
        const { sessionId: second } = await rpc.call<{ sessionId: string }>('session.open', {
          workspace: ws2,
        });
        assert.notEqual(first, sameWs);
        const names = ['plain', 'rel', 'pinned'];
        const s1 = await untilReady(rpc, first, names);
        const s1b = await untilReady(rpc, sameWs, names);
        const s2 = await untilReady(rpc, second, names);

        for (const name of ['plain', 'rel']) {
          assert.notEqual(pidOf(s1, name), pidOf(s2, name), `${name}: one process per workspace`);
          assert.notEqual(
            s1.get(name)?.status.connectionId,
            s2.get(name)?.status.connectionId,
            `${name}: the connectionId says where it runs`,
          );
          assert.equal(pidOf(s1, name), pidOf(s1b, name), `${name}: one workspace shares`);
        }
        assert.equal(cwdOf(pidOf(s1, 'plain')), ws1);
        assert.equal(cwdOf(pidOf(s2, 'plain')), ws2);
        // A relative cwd is relative to the workspace, not to wherever the daemon runs.
        assert.equal(cwdOf(pidOf(s1, 'rel')), path.join(ws1, 'sub'));
        assert.equal(cwdOf(pidOf(s2, 'rel')), path.join(ws2, 'sub'));
        assert.equal(pidOf(s1, 'pinned'), pidOf(s2, 'pinned'), 'an absolute cwd is shared');
        assert.equal(cwdOf(pidOf(s2, 'pinned')), realpathSync(env.root));

        // The preview agrees with what runs: nothing would restart in either workspace.
        for (const sessionId of [first, second]) {
          const { lines } = await rpc.call<{ lines: DiffLine[] }>('session.diff', { sessionId });
          assert.deepEqual(
            lines.map((l) => `${l.action} ${l.name}`),
            ['keep pinned', 'keep plain', 'keep rel'],
          );
        }
      } finally {
        await rpc.close();
      }
    },
  );
});
