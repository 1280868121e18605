/**
 * Who is asked a server's sampling or elicitation request (ask-rules.ts), rule by rule, on the
 * router's state alone: no server, no connection. The same rules through a real pool and SDK
 * server: agent-routing.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { recipientsOf, workspacesOf, type AskState, type CallInFlight } from './ask-rules.js';
import { RpcError } from './errors.js';
import { RecordingPoolAgent } from './testing/agents.js';
import type { McpMessage, PoolAgent } from './types.js';

const SAMPLING: McpMessage = { method: 'sampling/createMessage', params: {} };
const forTask = (taskId: string): McpMessage => ({
  method: 'elicitation/create',
  params: { _meta: { [RELATED_TASK_META_KEY]: { taskId } } },
});

interface Setup {
  readonly agents?: readonly PoolAgent[];
  readonly calls?: readonly PoolAgent[];
  readonly holders?: ReadonlyArray<readonly [string, string]>;
}

function stateOf(setup: Setup, warnings: string[] = []): AskState {
  return {
    server: 'srv',
    agents: setup.agents ?? [],
    inFlight: (setup.calls ?? []).map((caller): CallInFlight => ({ caller })),
    holders: new Map(setup.holders ?? []),
    warn: (message) => warnings.push(message),
  };
}

/** The refusal `recipientsOf` throws, checked to be the InvalidRequest the server gets. */
function refusal(state: AskState, message: McpMessage): string {
  try {
    recipientsOf(state, message);
  } catch (err) {
    assert.ok(err instanceof RpcError, 'a refusal is an RpcError');
    assert.equal(err.code, ErrorCode.InvalidRequest);
    assert.match(err.message, /server "srv"/);
    return err.message;
  }
  assert.fail('expected the request to be refused');
}

test('rule 1: a request that names a task goes to the agent that created it', () => {
  const a = new RecordingPoolAgent('a', { can: ['elicitation'], tasks: ['t1'] });
  const b = new RecordingPoolAgent('b', { can: ['elicitation'], tasks: ['t2'] });
  // Even while another agent's call is in flight: the task says whose it is.
  assert.deepEqual(recipientsOf(stateOf({ agents: [a, b], calls: [a] }), forTask('t2')), [b]);
});

test('rule 1: a task nobody, or several, claim is refused', () => {
  const a = new RecordingPoolAgent('a', { can: ['elicitation'], tasks: ['t1'] });
  const b = new RecordingPoolAgent('b', { can: ['elicitation'], tasks: ['t1'] });
  assert.match(refusal(stateOf({ agents: [a] }), forTask('t9')), /which no agent/);
  assert.match(refusal(stateOf({ agents: [a, b] }), forTask('t1')), /which 2 agents claim/);
});

test('rule 1: the owner that cannot answer is not replaced by one that can', () => {
  const owner = new RecordingPoolAgent('owner', { tasks: ['t1'] });
  const other = new RecordingPoolAgent('other', { can: ['elicitation'] });
  assert.match(
    refusal(stateOf({ agents: [owner, other] }), forTask('t1')),
    /the agent that created task "t1" \(owner\) did not declare elicitation/,
  );
});

test('rule 2: the one agent whose calls are in flight, however many', () => {
  const a = new RecordingPoolAgent('a', { can: ['sampling'] });
  const b = new RecordingPoolAgent('b', { can: ['sampling'] });
  assert.deepEqual(recipientsOf(stateOf({ agents: [a, b], calls: [b, b] }), SAMPLING), [b]);
  const mute = new RecordingPoolAgent('mute');
  assert.match(
    refusal(stateOf({ agents: [a, mute], calls: [mute] }), SAMPLING),
    /the agent whose call is in flight \(mute\) did not declare sampling/,
  );
});

test('rule 3: calls of several agents in flight, of one workspace or more: refused', () => {
  const a = new RecordingPoolAgent('a', { can: ['sampling'], workspace: '/w1' });
  const b = new RecordingPoolAgent('b', { can: ['sampling'], workspace: '/w1' });
  const c = new RecordingPoolAgent('c', { can: ['sampling'], workspace: '/w2' });
  const same = refusal(stateOf({ agents: [a, b], calls: [a, b] }), SAMPLING);
  assert.match(same, /calls of 2 agents are in flight/);
  const across = refusal(stateOf({ agents: [a, c], calls: [a, c] }), SAMPLING);
  assert.match(across, /calls of 2 agents of 2 workspaces are in flight/);
});

test('rule 4: no call in flight: every attached agent that can answer', () => {
  const a = new RecordingPoolAgent('a', { can: ['sampling'] });
  const mute = new RecordingPoolAgent('mute');
  const b = new RecordingPoolAgent('b', { can: ['sampling'] });
  assert.deepEqual(recipientsOf(stateOf({ agents: [a, mute, b] }), SAMPLING), [a, b]);
  assert.match(
    refusal(stateOf({ agents: [mute] }), SAMPLING),
    /none of its agent declared sampling/,
  );
  assert.match(refusal(stateOf({}), SAMPLING), /no agent is using it now/);
});

test('rule 4: sessions of several workspaces use the connection: refused', () => {
  const a = new RecordingPoolAgent('a', { can: ['sampling'], workspace: '/w1' });
  // A session of another workspace holds the connection before any of its agents attached.
  const held = stateOf({ agents: [a], holders: [['s-2', '/w2']] });
  assert.match(refusal(held, SAMPLING), /sessions of 2 workspaces use it/);
});

test("an agent's callback that throws counts as no, and is reported", () => {
  const warnings: string[] = [];
  const broken = new RecordingPoolAgent('broken', { can: ['sampling'] });
  broken.canAnswer = () => {
    throw new Error('boom');
  };
  const b = new RecordingPoolAgent('b', { can: ['sampling'] });
  assert.deepEqual(recipientsOf(stateOf({ agents: [broken, b] }, warnings), SAMPLING), [b]);
  assert.deepEqual(warnings, ['canAnswer of broken threw: boom']);
});

test('workspacesOf: holders, attached agents and callers together', () => {
  const a = new RecordingPoolAgent('a', { workspace: '/w1' });
  const caller = new RecordingPoolAgent('caller', { workspace: '/w3' });
  const users = stateOf({ agents: [a], calls: [caller], holders: [['s-1', '/w2']] });
  assert.deepEqual([...workspacesOf(users)].sort(), ['/w1', '/w2', '/w3']);
});
