/**
 * e2e (issue #22, M3): a server shared by two workspaces must not carry one agent's sampling,
 * elicitation or roots to the other. Two agents, each through its own `mcpctl serve` in its
 * own workspace, use one pooled process of the fixture e2e/fixtures/asker-server.ts (user
 * settings, absolute `cwd`: both sessions share it, checked with `get connections`).
 *
 * Attacks:
 * - B's call is in flight and the server asks sampling with B's data; A starts a call
 *   meanwhile. Before the fix the request went to A ("the last call in flight") and A's answer
 *   came back into B's result. Now neither agent is asked and the server hears why.
 * - Requests that no call caused (a "password" elicitation, a sampling) were broadcast to both
 *   workspaces' agents. Now they reach none of them.
 * - `roots/list` gave the server both workspaces' roots. Now it gets none while both share it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ConnectionList } from '../cli/objects.js';
import { TestEnv, untilTools } from './harness.js';
import { until } from '../testing/until.js';
import {
  REQUEST_TIMEOUT_MS,
  RecordingAgent,
  connectThroughServe,
  textOf,
} from './gateway-agent.js';

const T = { timeout: 90_000 };
const SERVER = 'asker';
const ASKER = fileURLToPath(new URL('./fixtures/asker-server.js', import.meta.url));
const tool = (bare: string) => `${SERVER}__${bare}`;

describe('security: sampling, elicitation and roots stay with their agent (e2e)', () => {
  let env: TestEnv | undefined;
  let a: RecordingAgent;
  let b: RecordingAgent;
  let reportFile = '';
  const rootUri: Record<'a' | 'b', string> = { a: '', b: '' };

  /** Everything either agent was asked, as text: what a leak would show up in. */
  const seenBy = (agent: RecordingAgent): string =>
    JSON.stringify([agent.samplingRequests, agent.elicitationRequests]);

  before(
    async () => {
      env = new TestEnv();
      const ws = { a: path.join(env.root, 'ws-a'), b: path.join(env.root, 'ws-b') };
      mkdirSync(ws.a);
      mkdirSync(ws.b);
      rootUri.a = pathToFileURL(realpathSync(ws.a)).href;
      rootUri.b = pathToFileURL(realpathSync(ws.b)).href;
      reportFile = path.join(env.root, 'asker-report.txt');
      env.write(env.userSettingsPath, {
        mcpServers: {
          [SERVER]: { command: process.execPath, args: [ASKER, reportFile], cwd: env.root },
        },
      });
      a = new RecordingAgent({ label: 'agent-a', roots: [{ uri: rootUri.a, name: 'ws-a' }] });
      b = new RecordingAgent({ label: 'agent-b', roots: [{ uri: rootUri.b, name: 'ws-b' }] });
      // One after the other: the first starts the daemon, the second finds it.
      await connectThroughServe(env, a, { workspace: ws.a });
      await connectThroughServe(env, b, { workspace: ws.b });
      for (const agent of [a, b])
        await untilTools(
          agent.client,
          `${tool('hold')} listed for ${agent.label}`,
          (names) => names.includes(tool('hold')),
          { timeoutMs: 30_000, request: { timeout: REQUEST_TIMEOUT_MS } },
        );
      const list = await env.json<ConnectionList>(['get', 'connections', '-o', 'json']);
      const mine = list.items.filter((c) => c.spec.server === SERVER);
      assert.equal(mine.length, 1, `one shared connection: ${JSON.stringify(mine)}`);
      assert.equal(mine[0]?.status.sessions.length, 2, 'held by both workspaces');
    },
    { timeout: 120_000 },
  );

  after(
    async () => {
      for (const agent of [a, b]) await agent?.close().catch(() => undefined);
      if (!env) return;
      await env.stopDaemon();
      await env.cleanup();
    },
    { timeout: 60_000 },
  );

  it("B's in-flight request never reaches A, who called meanwhile", T, async () => {
    const secret = 'B-SECRET-7f3a';
    const token = 'b-in-flight';
    const sample = b.callTool(tool('secret_sample'), { secret }, { progressToken: token });
    // B's call runs at the server (its progress says so) before A calls.
    await until("B's call to run at the server", () => b.progressOf(token).length > 0, {
      timeoutMs: 20_000,
    });
    const held = await a.callTool(tool('hold'));
    const result = textOf(await sample);
    assert.equal(textOf(held), 'held');
    assert.ok(!seenBy(a).includes(secret), `A was asked with B's data: ${seenBy(a)}`);
    assert.ok(!seenBy(b).includes(secret), 'B is not asked on a guess either');
    assert.ok(!result.includes('agent-a'), `A's answer went into B's result: ${result}`);
    assert.match(
      result,
      /^refused: MCP error -32600: mcpctl did not pass on sampling\/createMessage of server "asker": calls of 2 agents of 2 workspaces are in flight/,
    );
  });

  it('a request no call caused is shown to neither workspace', T, async () => {
    // Setting a level makes the fixture ask a "password" and a sampling with no call in flight.
    await a.client.setLoggingLevel('debug');
    const lines = await until(
      'the fixture to report both unprompted requests',
      () => {
        const text = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
        const got = text.split('\n').filter((l) => l !== '');
        return got.length >= 2 ? got : undefined;
      },
      { timeoutMs: 20_000 },
    );
    for (const agent of [a, b]) {
      assert.ok(!seenBy(agent).includes('password'), `${agent.label} was asked for a password`);
      assert.ok(!seenBy(agent).includes('unprompted'), `${agent.label} was sampled unprompted`);
    }
    for (const [i, method] of ['elicitation/create', 'sampling/createMessage'].entries()) {
      assert.match(
        lines[i] ?? '',
        new RegExp(
          `^\\w+: refused: MCP error -32600: mcpctl did not pass on ${method} of server "asker": no agent's call is in flight on its connection, and sessions of 2 workspaces use it`,
        ),
      );
    }
  });

  it("the shared server is offered neither workspace's roots", T, async () => {
    for (const agent of [a, b]) {
      const roots = textOf(await agent.callTool(tool('roots')));
      assert.ok(!roots.includes(rootUri.a) && !roots.includes(rootUri.b), roots);
      assert.equal(roots, '[]', `roots via ${agent.label}`);
    }
  });
});
