/**
 * e2e (issue #26): an HTTP agent that names no workspace in the URL but declares roots works in
 * the workspace of its first `file://` root that is a directory. Its requests wait until that
 * is known, so none is served by another workspace's servers; without a usable root, or without
 * an answer in time, it gets the daemon's workspace. A client without a GET stream is asked on
 * the stream of its first request.
 *
 * Where a session works is read from a user server without `cwd`: it runs in the workspace
 * (the fixture's echo reports its working directory).
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SessionList } from '../cli/objects.js';
import { TestEnv, whereRuns } from './harness.js';
import { rootsAgent, rootsOf, startHttpDaemon } from './http-agent.js';

const T = { timeout: 120_000 };

/** The working directory of the user server `plain` as this agent's session runs it. */
async function plainCwd(c: Client): Promise<string> {
  return (await whereRuns(c, 'plain__echo')).cwd;
}

describe('HTTP agents whose workspace comes from their roots (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    "the first directory root is the workspace; no usable root or no answer: the daemon's",
    T,
    async () => {
      const wsA = realpathSync(env.workspace);
      const wsB = path.join(realpathSync(env.root), 'other-ws');
      mkdirSync(wsB, { recursive: true });
      env.write(env.userSettingsPath, { mcpServers: { plain: env.fixture('plain') } });
      const http = await startHttpDaemon(env);
      // Its very first request waits for the roots and is served in wsB.
      const b = await rootsAgent(http, rootsOf(path.join(env.root, 'missing'), wsB));
      assert.equal(await plainCwd(b), wsB);
      const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
      assert.ok(
        sessions.items.some((s) => s.spec.workspace === wsB && s.status.env === 'daemon'),
        `a session of ${wsB}: ${JSON.stringify(sessions.items.map((s) => s.spec.workspace))}`,
      );
      assert.match(
        http.daemon.stderr(),
        new RegExp(`"workspace":"${wsB}","workspaceFrom":"roots"`),
      );
      assert.deepEqual(
        sessions.items
          .find((s) => s.spec.workspace === wsB)
          ?.status.agents.map((g) => g.workspaceFrom),
        ['roots'],
        '`get sessions` says where its workspace came from',
      );

      // Without a GET stream, the question comes on the stream of its first request.
      const noGet = await rootsAgent(http, rootsOf(wsB), { noGetStream: true });
      assert.equal(await plainCwd(noGet), wsB);

      // Roots that are no directory here: the daemon's workspace.
      const none = await rootsAgent(http, rootsOf(path.join(env.root, 'missing')));
      assert.equal(await plainCwd(none), wsA);

      // No answer at all: the daemon's workspace, after the wait.
      const silent = await rootsAgent(http, () => new Promise(() => undefined));
      const started = Date.now();
      assert.equal(await plainCwd(silent), wsA);
      assert.ok(Date.now() - started < 15_000, 'the wait is bounded');
      assert.equal(
        http.daemon
          .stderr()
          .split('\n')
          .filter((l) => l.includes('"workspaceFrom":"daemon"')).length,
        2,
      );
      const wide = await env.cli(['get', 'sessions', '-o', 'wide']);
      // CLIENTS: the agents' clientInfo, heard by the gateway their roots chose.
      const clients = 'e2e-roots/1\\.0\\.0,e2e-roots/1\\.0\\.0';
      assert.match(wide.stdout, new RegExp(`${wsB} .* 2 +roots +${clients}\\n`));
      assert.match(wide.stdout, new RegExp(`${wsA} .* 2 +daemon +${clients}\\n`));
      for (const c of [b, noGet, none, silent]) await c.close();
    },
  );
});
