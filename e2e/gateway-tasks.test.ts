/**
 * MCP tasks through the gateway: server-everything's `simulate-research-query` (a tool that
 * must run as a task) called task-augmented straight and through `mcpctl serve` gives the same
 * result; a second agent on the same pooled server can neither see, read nor cancel the first
 * agent's task.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { TestEnv } from './harness.js';
import {
  EVERYTHING_SERVER,
  REQUEST_TIMEOUT_MS,
  RecordingAgent,
  connectThroughServe,
  directTransport,
} from './gateway-agent.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };
const SERVER = 'everything';

/** Runs the research task to its end: create, poll tasks/get, then tasks/result. */
async function research(agent: RecordingAgent, tool: string) {
  const created = await agent.client.request(
    {
      method: 'tools/call',
      params: { name: tool, arguments: { topic: 'pooling' }, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
    { timeout: REQUEST_TIMEOUT_MS },
  );
  const taskId = created.task.taskId;
  let status = created.task.status;
  const ended = () => status === 'completed' || status === 'failed';
  // A wait, not a check: the status and result are compared with the direct run's.
  await until(
    'the task to end',
    async () => {
      if (ended()) return true;
      status = (
        await agent.client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)
      ).status;
      return ended();
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  ).catch(() => undefined);
  const result = await agent.client.request(
    { method: 'tasks/result', params: { taskId } },
    CallToolResultSchema,
    { timeout: REQUEST_TIMEOUT_MS },
  );
  return { taskId, status, result: result };
}

/** The report with the task's own id taken out (ids differ run to run). */
const scrubbed = (r: CallToolResult, taskId: string) =>
  JSON.parse(JSON.stringify(r).replaceAll(taskId, '<task>')) as unknown;

describe('MCP tasks through the gateway (e2e)', { timeout: 300_000 }, () => {
  let env: TestEnv | undefined;
  const direct = new RecordingAgent({ label: 'direct' });
  const a = new RecordingAgent({ label: 'agent-a' });
  const b = new RecordingAgent({ label: 'agent-b' });

  before(
    async () => {
      env = new TestEnv();
      env.write(env.userSettingsPath, {
        mcpServers: { [SERVER]: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      });
      await direct.connect(directTransport(env), () => '');
      // Same workspace: one session, one pooled server-everything for both agents.
      await connectThroughServe(env, a);
      await connectThroughServe(env, b);
    },
    { timeout: 120_000 },
  );
  after(
    async () => {
      for (const agent of [direct, a, b]) await agent.close().catch(() => undefined);
      if (!env) return;
      await env.stopDaemon();
      await env.cleanup();
    },
    { timeout: 60_000 },
  );

  it('a task-augmented call gives the same report straight and through serve', T, async () => {
    const straight = await research(direct, 'simulate-research-query');
    const through = await research(a, `${SERVER}__simulate-research-query`);
    assert.equal(straight.status, 'completed');
    assert.equal(through.status, 'completed');
    assert.deepEqual(
      scrubbed(through.result, through.taskId),
      scrubbed(straight.result, straight.taskId),
    );
  });

  it('another agent on the same server cannot see, read or cancel the task', T, async () => {
    const created = await a.client.request(
      {
        method: 'tools/call',
        params: {
          name: `${SERVER}__simulate-research-query`,
          arguments: { topic: 'privacy' },
          task: { ttl: 60_000 },
        },
      },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    const mine = await a.client.request(
      { method: 'tasks/list', params: {} },
      ListTasksResultSchema,
    );
    assert.ok(
      mine.tasks.some((t) => t.taskId === taskId),
      'the creator lists its task',
    );
    const theirs = await b.client.request(
      { method: 'tasks/list', params: {} },
      ListTasksResultSchema,
    );
    assert.ok(!theirs.tasks.some((t) => t.taskId === taskId), 'another agent does not');
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'] as const)
      await assert.rejects(
        b.client.request({ method, params: { taskId } }, GetTaskResultSchema),
        (err: Error & { code?: number }) => err.code === -32602 && /no task/.test(err.message),
        `${method} of another agent's task is refused`,
      );
    // The creator still can.
    const got = await a.client.request(
      { method: 'tasks/get', params: { taskId } },
      GetTaskResultSchema,
    );
    assert.equal(got.taskId, taskId);
  });
});
