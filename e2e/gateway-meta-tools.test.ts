/**
 * e2e (issue #14, "For agents that never re-list"): `mcpctl serve --meta-tools` adds two tools
 * whose names and schemas never change:
 * - `mcpctl_find_tools` `{ query?: string }` → `structuredContent: { tools: [{ name, server,
 *   description, inputSchema }], unavailable: [{ server, reason, message, action }] }`, and the
 *   same as JSON text;
 * - `mcpctl_call_tool` `{ name: string, arguments?: object }` → the called tool's result,
 *   unchanged.
 * `--meta-tools=only` lists just these two. An agent that never calls tools/list after start
 * (Qwen Code) still finds and calls a server added mid-session.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv } from './harness.js';
import { until } from '../testing/until.js';
import { RecordingAgent, connectThroughServe, textOf } from './gateway-agent.js';

const T = { timeout: 90_000 };
const FIND = 'mcpctl_find_tools';
const CALL = 'mcpctl_call_tool';

interface FoundTool {
  name: string;
  server: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, unknown>; required?: string[] };
}
interface Unavailable {
  server: string;
  reason: string;
  message: string;
  action: string;
}
interface Found {
  tools: FoundTool[];
  unavailable: Unavailable[];
}

/** Calls mcpctl_find_tools; checks the JSON text is the structured content. */
async function find(agent: RecordingAgent, query?: string): Promise<Found> {
  const r = await agent.callTool(FIND, query === undefined ? {} : { query });
  assert.notEqual(r.isError, true, `${FIND} failed: ${textOf(r)}`);
  const found = r.structuredContent as Found | undefined;
  assert.ok(found, `${FIND} answers structuredContent: ${JSON.stringify(r)}`);
  assert.ok(Array.isArray(found.tools) && Array.isArray(found.unavailable), JSON.stringify(found));
  assert.deepEqual(JSON.parse(textOf(r)), found, 'the text is the structured content as JSON');
  return found;
}

/** Polls mcpctl_find_tools until `check` accepts the answer. */
async function findUntil(
  agent: RecordingAgent,
  query: string | undefined,
  check: (found: Found) => boolean,
  what: string,
): Promise<Found> {
  let last: unknown;
  return until(
    what,
    async () => {
      const found = await find(agent, query);
      last = found;
      return check(found) ? found : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  ).catch((err: Error) => {
    throw new Error(
      `${err.message}; ${FIND} said: ${JSON.stringify(last)}; stderr: ${agent.stderr()}`,
    );
  });
}

describe('mcpctl serve --meta-tools (e2e)', () => {
  let env: TestEnv;
  let agent: RecordingAgent | undefined;
  beforeEach(() => {
    env = new TestEnv();
    agent = undefined;
  });
  afterEach(async () => {
    await agent?.close().catch(() => undefined);
    await env.stopDaemon();
    await env.cleanup();
  });

  it(
    'a server added mid-session is found and called through the two tools, without tools/list',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      agent = new RecordingAgent({ label: 'qwen-like', capabilities: {} });
      await connectThroughServe(env, agent, { args: ['--meta-tools'] });
      await findUntil(
        agent,
        undefined,
        (f) => f.tools.some((t) => t.name === 'fx__echo'),
        'fx__echo',
      );

      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx'), added: env.fixture('added', ['--tools=ping,pong']) },
      });
      const found = await findUntil(
        agent,
        'ping',
        (f) => f.tools.some((t) => t.name === 'added__ping'),
        'added__ping to be found',
      );
      const ping = found.tools.find((t) => t.name === 'added__ping');
      assert.equal(ping?.server, 'added');
      assert.equal(ping?.inputSchema.type, 'object');
      assert.ok(!found.tools.some((t) => t.name === 'fx__echo'), 'the query narrows the list');
      const all = await find(agent);
      assert.deepEqual(
        all.tools
          .map((t) => t.name)
          .filter((n) => n !== FIND && n !== CALL)
          .sort(),
        ['added__ping', 'added__pong', 'fx__echo'],
        "no query: every tool of the session's servers",
      );
      assert.deepEqual(all.unavailable, []);

      const viaMeta = await agent.callTool(CALL, { name: 'added__ping', arguments: { n: 1 } });
      assert.notEqual(viaMeta.isError, true, textOf(viaMeta));
      const answer = JSON.parse(textOf(viaMeta)) as { tool: string; args: unknown };
      assert.equal(answer.tool, 'ping');
      assert.deepEqual(answer.args, { n: 1 });
      // "Unchanged": the same as calling the tool by its name (same process, same answer).
      const direct = await agent.callTool('added__ping', { n: 1 });
      assert.deepEqual(viaMeta, direct);

      assert.deepEqual(
        agent.sent.filter((m) => m === 'tools/list'),
        [],
        'the client never called tools/list',
      );
      assert.deepEqual(agent.errors, []);
    },
  );

  it('--meta-tools=only lists exactly the two tools, and they reach every server', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx', ['--tools=echo,other']) },
    });
    agent = new RecordingAgent({ label: 'only', capabilities: {} });
    await connectThroughServe(env, agent, { args: ['--meta-tools=only'] });
    await findUntil(agent, 'echo', (f) => f.tools.some((t) => t.name === 'fx__echo'), 'fx__echo');
    const listed = (await agent.client.listTools()).tools;
    assert.deepEqual(listed.map((t) => t.name).sort(), [CALL, FIND]);
    const findTool = listed.find((t) => t.name === FIND);
    const callTool = listed.find((t) => t.name === CALL);
    assert.deepEqual(Object.keys(findTool?.inputSchema.properties ?? {}), ['query']);
    assert.deepEqual(findTool?.inputSchema.required ?? [], [], 'query is optional');
    assert.ok('name' in (callTool?.inputSchema.properties ?? {}));
    assert.ok('arguments' in (callTool?.inputSchema.properties ?? {}));
    assert.deepEqual(callTool?.inputSchema.required, ['name']);

    const r = await agent.callTool(CALL, { name: 'fx__other', arguments: { x: 'y' } });
    assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual((JSON.parse(textOf(r)) as { args: unknown }).args, { x: 'y' });
  });

  it(
    'a configured server that is not available: find says why, call answers isError with the why',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      // A project server is gated; this client declares no elicitation, so nobody is asked and
      // it stays pending.
      env.write(env.mcpJsonPath, { mcpServers: { pend: env.fixture('pend') } });
      agent = new RecordingAgent({ label: 'pending', capabilities: {} });
      await connectThroughServe(env, agent, { args: ['--meta-tools'] });
      const found = await findUntil(
        agent,
        undefined,
        (f) => f.unavailable.some((u) => u.server === 'pend'),
        'pend to be reported unavailable',
      );
      const pend = found.unavailable.find((u) => u.server === 'pend');
      assert.equal(pend?.reason, 'PendingApproval');
      assert.match(pend?.message ?? '', /needs approval/);
      assert.match(pend?.action ?? '', /mcpctl approve pend/);
      assert.ok(!found.tools.some((t) => t.server === 'pend'));

      const r = await agent.callTool(CALL, { name: 'pend__echo', arguments: {} });
      assert.equal(r.isError, true, `isError: ${JSON.stringify(r)}`);
      assert.match(textOf(r), /needs approval/);
      assert.match(textOf(r), /mcpctl approve pend/);
      assert.equal(existsSync(env.pidFile('pend')), false, 'the gated server never started');
    },
  );
});
