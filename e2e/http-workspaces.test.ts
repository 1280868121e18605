/**
 * e2e (issue #26): HTTP agents of two workspaces on one daemon. One names no workspace (so it
 * gets the daemon's), the other names its own in the URL (`?workspace=`). Each sees its own
 * workspace's project server and not the other's; a user server runs once per workspace (its
 * working directory is the workspace's) and is shared by two agents of the same workspace;
 * `get sessions -o wide` shows the URL's workspace with the daemon's environment, and where
 * each session's agents got their workspace (WORKSPACE-FROM: `url`, `daemon`). The daemon's own
 * folder, named in the URL (through a symbolic link too) or as the first root, is the daemon's
 * session, with its `--mcp-config` servers and their processes; another folder's session has
 * none of them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionList } from '../cli/objects.js';
import { DEFAULT_SESSION_ID } from '../controller/daemon.js';
import { TestEnv, whereRuns } from './harness.js';
import {
  httpTransport,
  rootsAgent,
  rootsOf,
  startHttpDaemon,
  type HttpDaemon,
} from './http-agent.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

async function agent(http: HttpDaemon, workspace?: string): Promise<Client> {
  const client = new Client({ name: 'e2e-http', version: '1.0.0' });
  await client.connect(httpTransport(http, workspace ? { query: { workspace } } : {}));
  return client;
}

const toolNames = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();

describe('HTTP agents of two workspaces (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    "each sees only its workspace's servers; processes are shared only within one",
    T,
    async () => {
      const wsA = realpathSync(env.workspace);
      const wsB = path.join(realpathSync(env.root), 'other-ws');
      mkdirSync(wsB, { recursive: true });
      env.write(env.userSettingsPath, { mcpServers: { plain: env.fixture('plain') } });
      env.write(path.join(wsA, '.mcp.json'), { mcpServers: { alpha: env.fixture('alpha') } });
      env.write(path.join(wsB, '.mcp.json'), { mcpServers: { beta: env.fixture('beta') } });
      const http = await startHttpDaemon(env);

      const a = await agent(http); // no workspace named: the daemon's
      const b = await agent(http, wsB);
      // Project servers wait for approval, in their own workspace's session.
      for (const [name, ws] of [
        ['alpha', wsA],
        ['beta', wsB],
      ] as const) {
        const r = await env.cli(['approve', name, '--workspace', ws]);
        assert.equal(r.code, 0, r.stderr);
      }
      await until('agent a to list its servers', async () => {
        const names = await toolNames(a);
        return names.includes('alpha__echo') && names.includes('plain__echo');
      });
      await until('agent b to list its servers', async () => {
        const names = await toolNames(b);
        return names.includes('beta__echo') && names.includes('plain__echo');
      });
      assert.deepEqual(await toolNames(a), ['alpha__echo', 'plain__echo']);
      assert.deepEqual(await toolNames(b), ['beta__echo', 'plain__echo']);
      const foreign = (await b.callTool({ name: 'alpha__echo', arguments: {} })) as CallToolResult;
      assert.equal(foreign.isError, true, "b cannot call a's project server");

      // The user server runs in each workspace, once per workspace.
      const inA = await whereRuns(a, 'plain__echo');
      const inB = await whereRuns(b, 'plain__echo');
      assert.equal(inA.cwd, wsA);
      assert.equal(inB.cwd, wsB);
      assert.notEqual(inA.pid, inB.pid);
      const a2 = await agent(http, wsA);
      await until('agent a2 to list plain', async () =>
        (await toolNames(a2)).includes('plain__echo'),
      );
      assert.equal((await whereRuns(a2, 'plain__echo')).pid, inA.pid, 'one workspace shares it');

      const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
      const ofB = sessions.items.find((s) => s.spec.workspace === wsB);
      assert.ok(ofB, `a session for ${wsB}: ${JSON.stringify(sessions.items.map((s) => s.spec))}`);
      assert.equal(ofB.status.env, 'daemon', "an HTTP agent's variables are the daemon's");
      // Where each agent's workspace came from: b's from its URL; wsA's session is shared by
      // a (no workspace named: the daemon's) and a2 (its URL).
      const from = (ws: string) =>
        sessions.items
          .find((s) => s.spec.workspace === ws)
          ?.status.agents.map((g) => `${g.transport}:${g.workspaceFrom}`)
          .sort();
      assert.deepEqual(from(wsB), ['http:url']);
      assert.deepEqual(from(wsA), ['http:daemon', 'http:url']);
      const wide = await env.cli(['get', 'sessions', '-o', 'wide']);
      // CLIENTS: each HTTP agent's initialize clientInfo, as sent.
      assert.match(wide.stdout, /AGENTS +WORKSPACE-FROM +CLIENTS/);
      assert.match(wide.stdout, new RegExp(`${wsB} .*daemon +1 +url +e2e-http/1\\.0\\.0\\n`));
      assert.match(
        wide.stdout,
        new RegExp(`${wsA} .* 2 +daemon,url +e2e-http/1\\.0\\.0,e2e-http/1\\.0\\.0\\n`),
      );

      for (const c of [a, b, a2]) await c.close();
    },
  );

  it(
    "the daemon's own folder, by URL or by root, is the daemon's session: its --mcp-config servers, their processes",
    T,
    async () => {
      const wsA = realpathSync(env.workspace);
      const wsB = path.join(realpathSync(env.root), 'other-ws');
      mkdirSync(wsB, { recursive: true });
      const link = path.join(env.root, 'ws-link');
      symlinkSync(wsA, link);
      env.write(env.userSettingsPath, { mcpServers: { plain: env.fixture('plain') } });
      const config = path.join(env.root, 'mcp-config.json');
      env.write(config, { mcpServers: { cfg: env.fixture('cfg') } });
      const http = await startHttpDaemon(env, ['--mcp-config', config]);

      const byUrl = await agent(http, link);
      const byRoot = await rootsAgent(http, rootsOf(wsA));
      const other = await agent(http, wsB);
      for (const [name, c] of [
        ['the URL agent', byUrl],
        ['the roots agent', byRoot],
      ] as const)
        await until(`${name} to list the --mcp-config server`, async () =>
          (await toolNames(c)).includes('cfg__echo'),
        );
      assert.deepEqual(await toolNames(byUrl), ['cfg__echo', 'plain__echo']);
      assert.deepEqual(await toolNames(byRoot), ['cfg__echo', 'plain__echo']);
      const inUrl = await whereRuns(byUrl, 'cfg__echo');
      assert.equal((await whereRuns(byRoot, 'cfg__echo')).pid, inUrl.pid, 'one process');
      await until('the other folder to list its user server', async () =>
        (await toolNames(other)).includes('plain__echo'),
      );
      assert.deepEqual(await toolNames(other), ['plain__echo'], 'no --mcp-config elsewhere');

      const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
      const ofA = sessions.items.filter((s) => s.spec.workspace === wsA);
      assert.deepEqual(
        ofA.map((s) => s.metadata.name),
        [DEFAULT_SESSION_ID],
        "one session of the daemon's folder: its own",
      );
      assert.deepEqual(
        ofA[0]?.status.agents.map((g) => `${g.transport}:${g.workspaceFrom}`).sort(),
        ['http:roots', 'http:url'],
      );
      for (const c of [byUrl, byRoot, other]) await c.close();
    },
  );
});
