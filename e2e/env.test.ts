/**
 * e2e: the agent's environment (DESIGN §5). `${VAR}` in the user's config files expands in the
 * environment of the agent that started `mcpctl serve`, exactly as the agent itself would; a
 * variable that is unset starts nothing (MissingEnv); no expanded or literal secret shows in
 * any output. Real processes throughout: the built CLI, its daemon, server-everything's
 * `get-env` and the stdio fixture.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { daemonLogPath } from '../cli/rpc/socket-path.js';
import { TestEnv, condition, untilTools } from './harness.js';

const T = { timeout: 90_000 };
const requireHere = createRequire(import.meta.url);
const EVERYTHING_SERVER = path.join(
  path.dirname(requireHere.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const LEAKY_SERVER = fileURLToPath(new URL('./fixtures/leaky-server.js', import.meta.url));

interface Agent {
  readonly client: Client;
  readonly pid: number;
  tools(): Promise<string[]>;
  call(name: string): Promise<string>;
  close(): Promise<void>;
}

/** An SDK client that runs `mcpctl serve` with `extraEnv` in its environment (the agent's). */
async function agent(env: TestEnv, extraEnv: Record<string, string>): Promise<Agent> {
  const serve = await env.serveClient({ extraEnv, name: 'e2e-env-agent' });
  const { client, pid } = serve;
  return {
    client,
    pid,
    tools: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
    async call(name) {
      const result = (await client.callTool({ name, arguments: {} })) as CallToolResult;
      assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
      const first = result.content[0];
      assert.equal(first?.type, 'text');
      return first.type === 'text' ? first.text : '';
    },
    close: () => serve.close(),
  };
}

function untilTool(a: Agent, tool: string): Promise<unknown> {
  return untilTools(a.client, `${tool} to be listed`, (names) => names.includes(tool), {
    timeoutMs: 30_000,
  });
}

describe('the agent environment (e2e)', T, () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cli(['stop'], { timeoutMs: 15_000 });
    await env.cleanup();
  });

  it(
    "expands ${VAR} and $VAR with the agent's value; another value gets its own process",
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [EVERYTHING_SERVER],
            env: { MY_TOKEN: '${PROBE_TOKEN}', MY_TOKEN2: '$PROBE_TOKEN' },
          },
          fx: {
            ...env.fixture('fx', ['--echo-env=MY_TOKEN']),
            env: { MY_TOKEN: '${PROBE_TOKEN}' },
          },
        },
      });
      const a = await agent(env, { PROBE_TOKEN: 'secret-abc-111' });
      const b = await agent(env, { PROBE_TOKEN: 'secret-xyz-222' });
      const again = await agent(env, { PROBE_TOKEN: 'secret-abc-111' });
      try {
        for (const x of [a, b, again]) {
          await untilTool(x, 'everything__get-env');
          await untilTool(x, 'fx__echo');
        }
        const envA = JSON.parse(await a.call('everything__get-env')) as Record<string, string>;
        assert.equal(envA.MY_TOKEN, 'secret-abc-111');
        assert.equal(envA.MY_TOKEN2, 'secret-abc-111');
        const envB = JSON.parse(await b.call('everything__get-env')) as Record<string, string>;
        assert.equal(envB.MY_TOKEN, 'secret-xyz-222');
        assert.equal(envB.MY_TOKEN2, 'secret-xyz-222');

        const echo = async (x: Agent) =>
          JSON.parse(await x.call('fx__echo')) as { pid: number; env: Record<string, string> };
        const [fa, fb, fagain] = [await echo(a), await echo(b), await echo(again)];
        assert.equal(fa.env.MY_TOKEN, 'secret-abc-111');
        assert.equal(fb.env.MY_TOKEN, 'secret-xyz-222');
        assert.notEqual(fa.pid, fb.pid, 'different tokens never share a process');
        assert.equal(fagain.pid, fa.pid, 'the same expanded config shares one process');

        // Which environment a session uses is shown; the values never are.
        const wide = await env.cli(['get', 'sessions', '-o', 'wide']);
        assert.equal(wide.code, 0, wide.stderr);
        assert.match(wide.stdout, /ENV/);
        assert.match(wide.stdout, new RegExp(`serve pid ${b.pid}`));
        // b alone holds its session, and its workspace came from its serve.
        assert.match(
          wide.stdout,
          new RegExp(`serve pid ${b.pid} +1 +serve +e2e-env-agent/1\\.0\\.0\\n`),
        );
        const outputs = [
          wide.stdout,
          (await env.cli(['get', 'sessions', '-o', 'yaml'])).stdout,
          (await env.cli(['get', 'servers', '-o', 'yaml'])).stdout,
          (await env.cli(['get', 'events'])).stdout,
        ];
        const described = await env.cli(['describe', 'server', 'fx']);
        assert.equal(described.code, 0, described.stderr);
        assert.match(described.stdout, /\$\{PROBE_TOKEN\}/, 'describe shows the file text');
        outputs.push(described.stdout, readFileSync(daemonLogPath(env.socket), 'utf8'));
        for (const out of outputs) {
          assert.ok(!out.includes('secret-abc-111'), out);
          assert.ok(!out.includes('secret-xyz-222'), out);
        }
      } finally {
        await Promise.all([a.close(), b.close(), again.close()]);
      }
    },
  );

  it(
    'an unset variable starts nothing (MissingEnv); an agent that sets it gets the server',
    T,
    async () => {
      const VAR = 'MCPCTL_E2E_UNSET_VAR';
      env.write(env.userSettingsPath, {
        mcpServers: {
          needs: { ...env.fixture('needs'), env: { T: `\${${VAR}}` } },
          plain: env.fixture('plain'),
        },
      });
      const without = await agent(env, {});
      try {
        await untilTool(without, 'plain__echo');
        const servers = await env.untilServers(
          (s) => condition(s.get('needs'), 'Ready')?.reason === 'MissingEnv',
          'needs to be MissingEnv',
        );
        const ready = condition(servers.get('needs'), 'Ready');
        assert.equal(ready?.status, 'False');
        assert.match(ready?.message ?? '', new RegExp(VAR));
        assert.match(ready?.message ?? '', /settings\.json/);
        assert.equal(condition(servers.get('needs'), 'Admitted')?.status, 'True');
        assert.equal(servers.get('needs')?.status.pid, undefined);
        const why = await env.cli(['why', 'needs']);
        assert.equal(why.code, 0, why.stderr);
        assert.match(why.stdout, /MissingEnv/);
        assert.match(why.stdout, new RegExp(`set ${VAR} in the environment the agent starts`));
        assert.ok(!(await without.tools()).includes('needs__echo'));
        assert.equal(existsSync(env.pidFile('needs')), false, 'nothing was spawned');
        const events = await env.cli(['get', 'events']);
        assert.match(events.stdout, /MissingEnv/);
      } finally {
        await without.close();
      }
      const withVar = await agent(env, { [VAR]: 'value-12345' });
      try {
        await untilTool(withVar, 'needs__echo');
        await withVar.call('needs__echo');
        assert.equal(existsSync(env.pidFile('needs')), true);
      } finally {
        await withVar.close();
      }
    },
  );

  it('a server that prints its environment to stderr leaks no secret anywhere', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: {
        leaky: {
          command: process.execPath,
          args: [LEAKY_SERVER, env.root],
          env: { LEAKY_SECRET: 'sekrit-literal-42', FROM_AGENT: '${AGENT_SECRET}' },
        },
      },
    });
    const a = await agent(env, { AGENT_SECRET: 'agent-sekrit-77' });
    try {
      await env.untilServers(
        (s) =>
          condition(s.get('leaky'), 'Ready')?.status === 'False' &&
          condition(s.get('leaky'), 'Ready')?.reason !== 'Connecting',
        'leaky to fail',
      );
      const described = await env.cli(['describe', 'server', 'leaky']);
      // Its stderr is shown (that is how a user debugs it), with the values scrubbed.
      assert.match(described.stdout, /fatal: could not start/);
      assert.match(described.stdout, /LEAKY_SECRET=<redacted>/);
      const outputs = [
        described.stdout,
        described.stderr,
        (await env.cli(['why', 'leaky'])).stdout,
        (await env.cli(['get', 'events'])).stdout,
        (await env.cli(['get', 'events', '-o', 'json'])).stdout,
        (await env.cli(['get', 'servers', '-o', 'yaml'])).stdout,
        (await env.cli(['get', 'servers', '-o', 'wide'])).stdout,
        (await env.cli(['describe', 'server', 'leaky', '--show-secrets'])).stderr,
        readFileSync(daemonLogPath(env.socket), 'utf8'),
      ];
      for (const out of outputs) {
        assert.ok(!out.includes('sekrit-literal-42'), `literal secret in: ${out}`);
        assert.ok(!out.includes('agent-sekrit-77'), `expanded secret in: ${out}`);
      }
    } finally {
      await a.close();
    }
  });
});
