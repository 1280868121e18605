/**
 * e2e (issue #15, "Processes that really stop"): with the daemon's DEFAULT drain delay (30 s),
 * a release the config decides — removed, excluded, `allowed: []`, a narrowed allowlist, an
 * approved project server edited back to pending, the old side of a rolling update — ends the
 * process at once; only a session that ends (its `serve` exited) leaves its servers draining,
 * and `mcpctl get connections` shows that. A new `serve` within the delay gets the same pid.
 *
 * "At once" is checked as "gone long before the drain delay": each pid is polled with a 10 s
 * deadline, a third of the 30 s a drained process would live.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServer } from '../api/index.js';
import type { ConnectionList, ConnectionObject } from '../cli/objects.js';
import {
  TestEnv,
  condition,
  isAlive,
  isReady,
  whereRuns,
  type DaemonProcess,
  untilTools,
} from './harness.js';
import { until } from '../testing/until.js';
import { fakeEntry } from './lsp-agent.js';

const T = { timeout: 120_000 };

/** Well below the 30 s default drain delay: a drained process would still be alive. */
const GONE_WITHIN_MS = 10_000;

/** `mcpctl daemon` with the default drain delay (the harness's startDaemon sets 0). */
async function startDefaultDaemon(env: TestEnv): Promise<DaemonProcess> {
  const daemon = env.spawnDaemon(['daemon', '--workspace', env.workspace, '--debounce-ms', '50']);
  await until(
    'the daemon to answer',
    async () => {
      if (daemon.child.exitCode !== null || daemon.child.signalCode !== null)
        throw new Error(`daemon exited early: ${daemon.stderr()}`);
      return (await env.cli(['get', 'sessions', '-o', 'name'])).code === 0;
    },
    { timeoutMs: 20_000 },
  );
  return daemon;
}

function pidOf(servers: Map<string, McpServer>, name: string): number {
  const pid = servers.get(name)?.status.pid;
  assert.ok(typeof pid === 'number', `${name} has a pid`);
  return pid;
}

function gone(pid: number, what: string): Promise<true> {
  return until(what, () => !isAlive(pid), { timeoutMs: GONE_WITHIN_MS });
}

async function connections(env: TestEnv): Promise<ConnectionObject[]> {
  return (await env.json<ConnectionList>(['get', 'connections', '-o', 'json'])).items;
}

interface Agent {
  readonly client: Client;
  readonly pid: number;
  close(): Promise<void>;
}

/** An agent running `mcpctl serve --workspace ws` over stdio, as Claude or Qwen would. */
async function connectAgent(
  env: TestEnv,
  ws: string,
  args: readonly string[] = [],
): Promise<Agent> {
  return env.serveClient({ workspace: ws, args });
}

/** The pid the fixture's echo tool reports, once the agent lists it. */
async function echoPid(agent: Agent, tool: string): Promise<number> {
  await untilTools(agent.client, `${tool} to be listed`, (names) => names.includes(tool), {
    timeoutMs: 30_000,
  });
  return (await whereRuns(agent.client, tool)).pid;
}

describe('processes that really stop (e2e, default drain delay)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'removed, excluded, narrowed out, rolled, back to pending, allowed: [] → the old process is gone at once',
    T,
    async () => {
      const fixtures = {
        keep: env.fixture('keep'),
        removed: env.fixture('removed'),
        excluded: env.fixture('excluded'),
        narrowed: env.fixture('narrowed'),
        edited: env.fixture('edited'),
      };
      const user = (mcpServers: object, mcp: object = {}) =>
        env.write(env.userSettingsPath, { mcp, mcpServers });
      user(fixtures);
      env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj') } });
      await startDefaultDaemon(env);
      const approve = await env.cli(['approve', 'proj']);
      assert.equal(approve.code, 0, approve.stderr);
      const all = ['keep', 'removed', 'excluded', 'narrowed', 'edited', 'proj'];
      const first = await env.untilServers(
        (m) => all.every((n) => isReady(m.get(n))),
        'every server Ready',
      );
      const pid = (name: string) => pidOf(first, name);

      const withoutRemoved: Partial<typeof fixtures> = { ...fixtures };
      delete withoutRemoved.removed;
      user(withoutRemoved);
      await gone(pid('removed'), 'the removed server to stop');

      user(withoutRemoved, { excluded: ['excluded'] });
      await gone(pid('excluded'), 'the excluded server to stop');

      user(withoutRemoved, { excluded: ['excluded'], allowed: ['keep', 'edited', 'proj'] });
      await gone(pid('narrowed'), 'the server narrowed out of mcp.allowed to stop');

      // A rolling update: the new process serves, the old one ends (not after a drain).
      const editedConfig = env.fixture('edited', ['--tools=echo,more']);
      user(
        { ...withoutRemoved, edited: editedConfig },
        { excluded: ['excluded'], allowed: ['keep', 'edited', 'proj'] },
      );
      const rolled = await env.untilServers(
        (m) => isReady(m.get('edited')) && m.get('edited')?.status.pid !== pid('edited'),
        'edited rolled to a new process',
      );
      await gone(pid('edited'), "the rolled server's old process to stop");
      assert.ok(isAlive(pidOf(rolled, 'edited')), 'the new process serves');

      // An approved project server edited: its new config is pending, its process must end.
      env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj', ['--tools=other']) } });
      await env.untilServers(
        (m) => condition(m.get('proj'), 'Admitted')?.reason === 'PendingApproval',
        'proj back to pending',
      );
      await gone(pid('proj'), 'the edited project server to stop');

      assert.ok(isAlive(pid('keep')), 'the unchanged server kept its process throughout');
      const live = await connections(env);
      assert.deepEqual(
        live.map((c) => `${c.spec.server}/${c.status.state}/${c.status.pid}`).sort(),
        [`edited/Ready/${pidOf(rolled, 'edited')}`, `keep/Ready/${pid('keep')}`],
        'get connections shows exactly the processes that run',
      );

      user({ ...withoutRemoved, edited: editedConfig }, { allowed: [] });
      await gone(pid('keep'), 'every server to stop with allowed: []');
      await gone(pidOf(rolled, 'edited'), 'every server to stop with allowed: []');
      assert.deepEqual(await connections(env), []);
      const table = await env.cli(['get', 'connections']);
      assert.equal(table.code, 0, table.stderr);
      assert.equal(table.stdout, '');
      assert.match(table.stderr, /^No connections found\./);
    },
  );

  it(
    'a serve that exits leaves its servers Draining; a new serve within the delay gets the same pid',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const ws2 = path.join(realpathSync(env.root), 'agent-ws');
      mkdirSync(ws2);
      await startDefaultDaemon(env);
      let agent = await connectAgent(env, ws2);
      try {
        const pid = await echoPid(agent, 'fx__echo');
        const mine = async () => (await connections(env)).find((c) => c.status.pid === pid);
        const held = await mine();
        assert.equal(held?.status.state, 'Ready');
        assert.equal(held?.status.sessions.length, 1, 'held by the agent’s session');
        assert.equal(held?.kind, 'Connection');
        assert.equal(held?.apiVersion, 'mcpctl.dev/v1alpha1');

        await agent.close();
        const draining = await until(
          "the agent's connection to drain",
          async () => {
            const c = await mine();
            return c?.status.state === 'Draining' ? c : undefined;
          },
          { timeoutMs: 15_000 },
        );
        assert.deepEqual(draining.status.sessions, []);
        assert.ok(draining.status.drainEndsAt, 'says when the drain ends');
        assert.ok(isAlive(pid), 'a session that ended keeps its servers for the drain delay');
        const table = await env.cli(['get', 'connections']);
        assert.equal(table.code, 0, table.stderr);
        const header = table.stdout.split('\n')[0] ?? '';
        assert.match(header, /^CONNECTION\s+SERVER\s+KIND\s+PID\s+SESSIONS\s+STATE\s+AGE$/);
        const row = table.stdout.split('\n').find((l) => l.includes(` ${pid} `)) ?? '';
        assert.match(row, /<none>\s+Draining \(\d+s left\)\s+\S+$/);
        const names = await env.cli(['get', 'connections', '-o', 'name']);
        assert.match(names.stdout, new RegExp(`^connection/${draining.metadata.name}$`, 'm'));

        agent = await connectAgent(env, ws2);
        assert.equal(await echoPid(agent, 'fx__echo'), pid, 'the same process, not a new one');
        const back = await mine();
        assert.equal(back?.status.state, 'Ready');
        assert.equal(back?.status.sessions.length, 1);
        await agent.close();
      } finally {
        await agent.close().catch(() => undefined);
        await env.stopDaemon();
      }
    },
  );

  it(
    'a language server its session left drains as an MCP server does: Draining, with time left',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const lspConfig = path.join(env.root, 'lsp.json');
      env.write(lspConfig, { fake: fakeEntry(env) });
      const ws2 = path.join(realpathSync(env.root), 'agent-ws');
      mkdirSync(ws2);
      await startDefaultDaemon(env);
      const agent = await connectAgent(env, ws2, ['--lsp-config', lspConfig]);
      try {
        const pid = await echoPid(agent, 'fx__echo');
        const ofAgent = async () =>
          (await connections(env)).filter(
            (c) =>
              c.status.pid === pid ||
              (c.spec.kind === 'LanguageServer' && c.spec.server === 'fake'),
          );
        const held = await until('both connections Ready and held', async () => {
          const both = await ofAgent();
          return both.length === 2 && both.every((c) => c.status.state === 'Ready')
            ? both
            : undefined;
        });
        assert.deepEqual(held.map((c) => c.spec.kind).sort(), ['LanguageServer', 'McpServer']);

        await agent.close();
        const draining = await until(
          'both to drain',
          async () => {
            const both = await ofAgent();
            return both.length === 2 && both.every((c) => c.status.sessions.length === 0)
              ? both
              : undefined;
          },
          { timeoutMs: 15_000 },
        );
        for (const c of draining) {
          assert.equal(c.status.state, 'Draining', `${c.spec.kind} ${c.spec.server}`);
          assert.ok(c.status.drainEndsAt, `${c.spec.kind} says when its drain ends`);
        }
        const table = await env.cli(['get', 'connections']);
        assert.equal(table.code, 0, table.stderr);
        for (const kind of ['McpServer', 'LanguageServer'])
          assert.match(
            table.stdout,
            new RegExp(`\\s${kind}\\s.*<none>\\s+Draining \\(\\d+s left\\)\\s+\\S+$`, 'm'),
            table.stdout,
          );
      } finally {
        await agent.close().catch(() => undefined);
        await env.stopDaemon();
      }
    },
  );
});
