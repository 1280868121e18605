/**
 * e2e (issue #14): two agents — two `mcpctl serve` processes in two different workspaces — on
 * ONE pooled server-everything process. What the server sends because of one agent reaches
 * that agent only:
 * - progress: both agents call at once with the SAME progress token; each gets exactly its own
 *   operation's progress (told apart by their different step counts);
 * - sampling/elicitation: the request goes to the agent whose call caused it when that call is
 *   the only one in flight; while the other agent (of the other workspace) has a call in flight
 *   on the same connection, whose request it is cannot be told, so it reaches neither and the
 *   call says why (issue #22 M3; the attacks: security-cross-agent.test.ts);
 * - roots: a server shared by two workspaces is offered neither agent's roots (issue #22 M3).
 *
 * The server is in the user settings of the shared temp HOME with an absolute `cwd`: stdio
 * connectionIds include the working directory, and an absolute one is the same for both
 * workspaces, so both sessions share one process (checked with `get connections`).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ConnectionList } from '../cli/objects.js';
import { TestEnv, untilTools } from './harness.js';
import { until } from '../testing/until.js';
import {
  EVERYTHING_SERVER,
  REQUEST_TIMEOUT_MS,
  RecordingAgent,
  connectThroughServe,
  textOf,
} from './gateway-agent.js';

const T = { timeout: 90_000 };
const SERVER = 'everything';
const tool = (bare: string) => `${SERVER}__${bare}`;

describe('two agents on one pooled server-everything (e2e)', { timeout: 600_000 }, () => {
  let env: TestEnv | undefined;
  let a: RecordingAgent;
  let b: RecordingAgent;
  const rootUri: Record<'a' | 'b', string> = { a: '', b: '' };

  before(
    async () => {
      env = new TestEnv();
      const ws = { a: path.join(env.root, 'ws-a'), b: path.join(env.root, 'ws-b') };
      mkdirSync(ws.a);
      mkdirSync(ws.b);
      rootUri.a = pathToFileURL(realpathSync(ws.a)).href;
      rootUri.b = pathToFileURL(realpathSync(ws.b)).href;
      env.write(env.userSettingsPath, {
        mcpServers: {
          [SERVER]: { command: process.execPath, args: [EVERYTHING_SERVER], cwd: env.root },
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
          `${tool('echo')} listed for ${agent.label}`,
          (names) => names.includes(tool('echo')),
          { timeoutMs: 30_000, request: { timeout: REQUEST_TIMEOUT_MS } },
        );
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

  it('both workspaces share one server-everything process', T, async () => {
    assert.ok(env);
    const list = await env.json<ConnectionList>(['get', 'connections', '-o', 'json']);
    const mine = list.items.filter((c) => c.spec.server === SERVER);
    assert.equal(mine.length, 1, `one connection: ${JSON.stringify(mine)}`);
    const [conn] = mine;
    assert.ok(conn);
    assert.equal(typeof conn.status.pid, 'number', 'a running process');
    assert.equal(
      conn.status.sessions.length,
      2,
      `held by both sessions: ${conn.status.sessions.join(', ')}`,
    );
  });

  it('each agent gets only its own progress, even when both use the same token', T, async () => {
    const token = 'same-token';
    const [ra, rb] = await Promise.all([
      a.callTool(
        tool('trigger-long-running-operation'),
        { duration: 1.2, steps: 3 },
        {
          progressToken: token,
        },
      ),
      b.callTool(
        tool('trigger-long-running-operation'),
        { duration: 1, steps: 5 },
        {
          progressToken: token,
        },
      ),
    ]);
    assert.match(textOf(ra), /Steps: 3\./, 'agent a got its own answer');
    assert.match(textOf(rb), /Steps: 5\./, 'agent b got its own answer');
    // The last notification may be handled just after the answer: wait for the counts.
    await until(
      'both agents to get their progress',
      () => a.progressOf(token).length >= 3 && b.progressOf(token).length >= 5,
      { timeoutMs: 5000 },
    ).catch(() => undefined);
    const steps = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ progress: i + 1, total: n }));
    assert.deepEqual(a.progressOf(token), steps(3), "agent a: its 3 steps, none of b's");
    assert.deepEqual(b.progressOf(token), steps(5), "agent b: its 5 steps, none of a's");
    assert.deepEqual(
      [...a.progress, ...b.progress].filter((p) => p.progressToken !== token),
      [],
      'no progress with a token the agents never sent',
    );
  });

  const allText = (r: CallToolResult) =>
    r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

  /**
   * `caller` calls `bare` alone: the request the server sends back reaches `caller` only. Then
   * again while `other` holds a call in flight (a long operation) on the same connection: the
   * request reaches neither agent, and the call fails saying why.
   */
  async function asks(
    caller: RecordingAgent,
    other: RecordingAgent,
    bare: string,
    args: Record<string, unknown>,
    requests: (agent: RecordingAgent) => unknown[],
    method: string,
  ) {
    const before = { caller: requests(caller).length, other: requests(other).length };
    const result = await caller.callTool(tool(bare), args);
    assert.notEqual(result.isError, true, `${bare} failed: ${textOf(result)}`);
    const counts = () => [
      requests(caller).length - before.caller,
      requests(other).length - before.other,
    ];
    assert.deepEqual(counts(), [1, 0], `only ${caller.label}'s handler was asked, once`);

    const token = `busy-${other.label}-${bare}`;
    const busy = other.callTool(
      tool('trigger-long-running-operation'),
      { duration: 3, steps: 3 },
      { progressToken: token },
    );
    // The other agent's call must be running at the server: its first progress proves it.
    await until(`${other.label}'s call to be running`, () => other.progressOf(token).length > 0, {
      timeoutMs: 10_000,
    });
    const during = await caller.callTool(tool(bare), args);
    await busy;
    assert.equal(during.isError, true, `not refused: ${allText(during)}`);
    assert.match(
      allText(during),
      new RegExp(
        `mcpctl did not pass on ${method} of server "${SERVER}": calls of 2 agents of 2 workspaces are in flight`,
      ),
    );
    assert.deepEqual(counts(), [1, 0], 'neither handler was asked while both calls ran');
    return result;
  }

  it('sampling/createMessage reaches only the agent whose call caused it', T, async () => {
    const sampled = (agent: RecordingAgent) => agent.samplingRequests;
    const m = 'sampling/createMessage';
    const ra = await asks(a, b, 'trigger-sampling-request', { prompt: 'from a' }, sampled, m);
    assert.match(textOf(ra), /answer from agent-a/);
    const rb = await asks(b, a, 'trigger-sampling-request', { prompt: 'from b' }, sampled, m);
    assert.match(textOf(rb), /answer from agent-b/);
  });

  it('elicitation/create reaches only the agent whose call caused it', T, async () => {
    const asked = (agent: RecordingAgent) => agent.elicitationRequests;
    const m = 'elicitation/create';
    const ra = await asks(a, b, 'trigger-elicitation-request', {}, asked, m);
    // server-everything puts the user's inputs in a later text block than its headline.
    assert.match(allText(ra), /user of agent-a/);
    const rb = await asks(b, a, 'trigger-elicitation-request', {}, asked, m);
    assert.match(allText(rb), /user of agent-b/);
  });

  it("roots/list: the server both workspaces share is offered neither's roots", T, async () => {
    for (const agent of [a, b]) {
      let last = '';
      await until(
        `no roots via ${agent.label}`,
        async () => {
          last = textOf(await agent.callTool(tool('get-roots-list')));
          return last.includes('no roots are currently configured');
        },
        { timeoutMs: 20_000, intervalMs: 250 },
      ).catch((err: Error) => {
        throw new Error(`${err.message}; get-roots-list said: ${last}`);
      });
      assert.ok(!last.includes(rootUri.a) && !last.includes(rootUri.b), last);
    }
  });
});
