/**
 * e2e (issue #22, M2): a server process gets its own session's environment (the agent's that
 * started `mcpctl serve`, plus its `env`), never another agent's. Agent A, with a secret in its
 * environment, starts the daemon; agents in another workspace, in the same workspace without
 * the secret, and a session the CLI opens must not see it, and neither may the daemon's own
 * process environment. Real processes throughout: the built CLI, the daemon it starts, the
 * stdio fixture (its `echo` tool reports the variables it was started with).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerList } from '../api/index.js';
import type { SessionList } from '../cli/objects.js';
import { TestEnv, isAlive, untilTools } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };
const SECRET = 'sekrit-of-agent-a-4242';
const ECHOED = ['SECRETX', 'ONLY_B', 'MCPCTL_SERVE_INSIDE'];

interface Echo {
  readonly pid: number;
  readonly env: Record<string, string | null>;
}

interface Agent {
  readonly pid: number;
  /** serve's stderr so far. */
  stderr(): string;
  /** Calls `tool` (an echo of the fixture) once it is listed; its answer. */
  echo(tool: string): Promise<Echo>;
  close(): Promise<void>;
}

/** An SDK client running `mcpctl serve` in `workspace` with `extraEnv` (the agent's). */
async function agent(
  env: TestEnv,
  workspace: string,
  extraEnv: Record<string, string>,
): Promise<Agent> {
  const serve = await env.serveClient({ workspace, extraEnv, name: 'e2e-env-isolation' });
  const { client, pid, stderr } = serve;
  return {
    pid,
    stderr,
    async echo(tool) {
      await untilTools(client, `${tool} to be listed in ${workspace}`, (n) => n.includes(tool), {
        timeoutMs: 30_000,
      });
      const result = (await client.callTool({ name: tool, arguments: {} })) as CallToolResult;
      assert.notEqual(result.isError, true, `${tool}: ${JSON.stringify(result.content)}`);
      const first = result.content[0];
      assert.equal(first?.type, 'text');
      return JSON.parse(first.type === 'text' ? first.text : '{}') as Echo;
    },
    close: () => serve.close(),
  };
}

/** The variables a process was started with (/proc/PID/environ). */
function environOf(pid: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) out.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return out;
}

describe("security: a server never gets another agent's environment (e2e)", () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cli(['stop'], { timeoutMs: 15_000 });
    await env.cleanup();
  });

  it(
    'agent A starts the daemon; servers of B, of C (same workspace) and of the CLI never see A’s secret',
    T,
    async () => {
      const root = realpathSync(env.root);
      const wsX = realpathSync(env.workspace);
      const wsY = path.join(root, 'ws-y');
      const wsZ = path.join(root, 'ws-z');
      for (const ws of [wsY, wsZ]) mkdirSync(ws, { recursive: true });
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', [`--echo-env=${ECHOED.join(',')}`]) },
      });
      // B's repository brings its own server, which B approves.
      env.write(path.join(wsY, '.mcp.json'), {
        mcpServers: { repo: env.fixture('repo', [`--echo-env=${ECHOED.join(',')}`]) },
      });

      const a = await agent(env, wsX, { SECRETX: SECRET });
      const b = await agent(env, wsY, { ONLY_B: 'b-value' });
      const c = await agent(env, wsX, {});
      try {
        // A's own server runs in A's environment: what the agent itself would have given it.
        const ax = await a.echo('fx__echo');
        assert.equal(ax.env.SECRETX, SECRET);
        assert.ok(ax.env.MCPCTL_SERVE_INSIDE, 'the mark that keeps a nested serve inert');

        // The daemon A's serve started does not carry A's environment around.
        const started = await until(
          "serve's note of the daemon it started",
          () => /started an mcpctl daemon \(pid (\d+)\)/.exec(a.stderr())?.[1],
        );
        const daemonEnv = environOf(Number(started));
        assert.equal(daemonEnv.has('SECRETX'), false, 'the daemon was started without it');
        assert.ok(daemonEnv.get('PATH'), 'the daemon keeps PATH');
        assert.equal(daemonEnv.get('HOME'), env.home, 'the daemon keeps HOME');
        // A's environment reached the daemon as its default session's, which A's serve joined:
        // no second session of X runs every server again in the daemon's environment.
        const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
        const ofX = sessions.items.filter((s) => s.spec.workspace === wsX);
        assert.deepEqual(
          ofX.map((s) => s.status.env).sort(),
          [`serve pid ${a.pid}`, `serve pid ${c.pid}`].sort(),
          'one session of X per environment',
        );
        const daemonSession = sessions.items.find((s) => s.metadata.name === 'default');
        assert.equal(daemonSession?.status.env, `serve pid ${a.pid}`);

        // B, another workspace: its user server and its repository's approved one.
        const approved = await env.cli(['approve', 'repo'], { cwd: wsY });
        assert.equal(approved.code, 0, approved.stderr);
        for (const tool of ['fx__echo', 'repo__echo']) {
          const got = await b.echo(tool);
          assert.equal(got.env.SECRETX, null, `${tool} of B must not see A's secret`);
          assert.equal(got.env.ONLY_B, 'b-value', `${tool} of B runs in B's environment`);
          assert.ok(got.env.MCPCTL_SERVE_INSIDE, `${tool}: the mark is kept`);
        }

        // C, A's workspace but not A's environment: not A's process either.
        const cx = await c.echo('fx__echo');
        assert.equal(cx.env.SECRETX, null, "C's server must not see A's secret");
        assert.notEqual(cx.pid, ax.pid, 'different environments never share a process');

        // A session the CLI opens runs in the daemon's environment, not in A's.
        const list = await env.json<McpServerList>(
          ['get', 'servers', '--workspace', wsZ, '-o', 'json'],
          { cwd: wsZ },
        );
        const zPid = list.items.find((s) => s.metadata.name === 'fx')?.status.pid;
        assert.ok(
          typeof zPid === 'number',
          `fx runs for the CLI's session: ${JSON.stringify(list)}`,
        );
        assert.ok(isAlive(zPid), 'it drains after the CLI left');
        assert.equal(environOf(zPid).has('SECRETX'), false, "the CLI's server lacks A's secret");

        // Identities cover the environment by digest only: no value shows.
        for (const args of [
          ['get', 'connections', '-o', 'yaml'],
          ['get', 'servers', '-o', 'wide'],
          ['get', 'sessions', '-o', 'yaml'],
        ]) {
          const out = await env.cli(args);
          assert.equal(out.code, 0, out.stderr);
          assert.ok(!out.stdout.includes(SECRET), `${args.join(' ')}: ${out.stdout}`);
        }
      } finally {
        await Promise.all([a.close(), b.close(), c.close()]);
      }
    },
  );
});
