/**
 * Who is asked a server's `sampling/createMessage` or `elicitation/create` (issue #22, M3): a
 * function of the agent router's state (agent-routing.ts) at the moment the request comes. This
 * is the boundary between the agents sharing a connection: a request goes to the agent it
 * belongs to when that is knowable, else to nobody, and never from one workspace (the
 * `workspace` of a session, see PoolAgent) to another. Never guessed.
 *
 * Guarantees (`recipientsOf`), in this order:
 * 1. The request names a task (`_meta["io.modelcontextprotocol/related-task"].taskId`) → the
 *    attached agent that created that task (`ownsTask`); nobody, or several, claim it → refused.
 * 2. Else calls of exactly one agent are in flight on the connection → that agent.
 * 3. Calls of several agents are in flight → refused, also when they are all of one workspace:
 *    the answer would be put into a call it may not belong to (the same person may not be
 *    behind both), so it is refused with why and can be asked again later.
 * 4. No call in flight → the attached agents that can answer (all asked at once by the caller,
 *    server-requests.ts), provided the connection is used by sessions of one workspace only
 *    (holders, attached agents and callers); of several → refused.
 * The chosen agent must `canAnswer`, else the request is refused too: it never falls back to
 * another agent. Refused: it throws the RpcError (InvalidRequest) the server gets, naming the
 * server, the method and why. An agent's `ownsTask` or `canAnswer` that throws counts as "no"
 * and is reported through `warn`. Nothing else is read and nothing is changed.
 */
import { ErrorCode, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { messageOf, RpcError } from './errors.js';
import type { McpMessage, PoolAgent, PoolCaller } from './types.js';

/** A request of an agent in flight on the connection (AgentRouter.track). */
export interface CallInFlight {
  readonly caller: PoolCaller;
}

/** Who uses the connection now, as the router knows it. */
export interface ConnectionUsers {
  /** The attached agents, each once, in attach order. */
  readonly agents: readonly PoolAgent[];
  /** Every call in flight on the connection (an agent once per call). */
  readonly inFlight: readonly CallInFlight[];
  /** The workspace of each session holding the connection, by session id. */
  readonly holders: ReadonlyMap<string, string>;
}

/** The router's state as the rules read it. */
export interface AskState extends ConnectionUsers {
  /** The server's name in the config, for errors. */
  readonly server: string;
  /** An agent's callback threw (it counts as "no"). */
  readonly warn: (message: string) => void;
}

/** Who is asked `message` (rules 1-4 above); throws the RpcError the server gets. */
export function recipientsOf(state: AskState, message: McpMessage): readonly PoolCaller[] {
  const taskId = relatedTaskOf(message);
  if (taskId !== undefined) {
    const owners = state.agents.filter((p) => ownsTask(state, p, taskId));
    const [owner] = owners;
    if (owner === undefined || owners.length > 1) {
      const who = owners.length > 1 ? `${owners.length} agents claim` : 'no agent';
      throw refused(
        state,
        message,
        `it names task ${JSON.stringify(taskId)}, which ${who} using this connection created`,
      );
    }
    return onlyIfAble(state, owner, message, `that created task ${JSON.stringify(taskId)}`);
  }
  const callers = [...new Set(state.inFlight.map((f) => f.caller))];
  const [caller] = callers;
  if (caller !== undefined && callers.length === 1)
    return onlyIfAble(state, caller, message, 'whose call is in flight');
  if (callers.length > 1) {
    const spaces = new Set(callers.map((c) => c.workspace)).size;
    throw refused(
      state,
      message,
      `calls of ${callers.length} agents${spaces > 1 ? ` of ${spaces} workspaces` : ''} are in flight on its connection and the request does not say which it belongs to; it is not guessed (an answer must not reach another agent's call). Ask again while only one agent's call is in flight, or name the task in _meta "${RELATED_TASK_META_KEY}"`,
    );
  }
  const spaces = workspacesOf(state).size;
  if (spaces > 1) {
    throw refused(
      state,
      message,
      `no agent's call is in flight on its connection, and sessions of ${spaces} workspaces use it: a request no call caused is not shown to agents across workspaces`,
    );
  }
  const able = state.agents.filter((p) => canAnswer(state, p, message));
  if (able.length === 0) throw nobody(state, message);
  return able;
}

/**
 * The workspaces of the sessions using the connection: holders, attached agents, callers. A
 * server used by more than one is asked nothing on no call's behalf and offered no roots.
 */
export function workspacesOf(users: ConnectionUsers): Set<string> {
  const out = new Set(users.holders.values());
  for (const agent of users.agents) out.add(agent.workspace);
  for (const f of users.inFlight) out.add(f.caller.workspace);
  return out;
}

/** `[agent]` when it can answer; else the request goes to nobody (never to another agent). */
function onlyIfAble(
  state: AskState,
  agent: PoolCaller,
  message: McpMessage,
  which: string,
): readonly PoolCaller[] {
  if (canAnswer(state, agent, message)) return [agent];
  throw cannot(
    state,
    message,
    `the agent ${which} (${agent.label}) did not declare ${needOf(message)}`,
  );
}

function ownsTask(state: AskState, agent: PoolAgent, taskId: string): boolean {
  try {
    return agent.ownsTask(taskId);
  } catch (err) {
    state.warn(`ownsTask of ${agent.label} threw: ${messageOf(err)}`);
    return false;
  }
}

function canAnswer(state: AskState, agent: PoolCaller, message: McpMessage): boolean {
  try {
    return agent.canAnswer(message);
  } catch (err) {
    state.warn(`canAnswer of ${agent.label} threw: ${messageOf(err)}`);
    return false;
  }
}

function refused(state: AskState, message: McpMessage, why: string): RpcError {
  return new RpcError(
    ErrorCode.InvalidRequest,
    `mcpctl did not pass on ${message.method} of server "${state.server}": ${why}`,
  );
}

function cannot(state: AskState, message: McpMessage, why: string): RpcError {
  return new RpcError(
    ErrorCode.InvalidRequest,
    `no agent connected through mcpctl can answer ${message.method} for server "${state.server}": ${why}`,
  );
}

function nobody(state: AskState, message: McpMessage): RpcError {
  const asked = state.agents;
  const why =
    asked.length === 0
      ? 'no agent is using it now'
      : `none of its ${asked.length === 1 ? 'agent' : `${asked.length} agents`} declared ${needOf(message)}`;
  return cannot(state, message, why);
}

/** The task a server's request says it is about (`_meta` related-task), if any. */
function relatedTaskOf(message: McpMessage): string | undefined {
  const meta = message.params?.['_meta'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const related = (meta as Record<string, unknown>)[RELATED_TASK_META_KEY];
  if (typeof related !== 'object' || related === null) return undefined;
  const taskId = (related as { taskId?: unknown }).taskId;
  return typeof taskId === 'string' ? taskId : undefined;
}

/** What an agent must have declared to answer `message`, in words for an error. */
function needOf(message: McpMessage): string {
  if (message.method === 'sampling/createMessage') return 'sampling';
  if (message.method === 'elicitation/create') {
    return message.params?.['mode'] === 'url' ? 'elicitation in url mode' : 'elicitation';
  }
  return message.method;
}
