/**
 * What the gateway takes from an agent: one line, checked by hand as a JSON-RPC 2.0 message of
 * the shape MCP uses, before the SDK's Protocol sees it. (The Protocol drops, unanswered, every
 * message its zod schemas do not classify; and checking by hand costs far less than its tries.)
 *
 * Guarantees:
 * - A line that is not JSON is refused with -32700 and id null (JSON-RPC 2.0 §5.1).
 * - A value that is not a valid Request, Notification or Response object is refused with -32600:
 *   with the request's id when the message has a `method` and a valid id, else id null. (A
 *   response's id is one of the gateway's own: an error with that id would read, to the agent,
 *   as the answer to its own request of that id.) Valid ids are strings and integers (MCP: never
 *   null).
 * - A request that is valid JSON-RPC but whose params MCP cannot take (an array, or a `_meta`
 *   the SDK would not classify) is refused with -32602 and its id; such a notification is
 *   `ignored`: a notification is never answered.
 * - What is accepted is rebuilt from the fields JSON-RPC defines (others are dropped), so the
 *   SDK classifies it exactly as checked here: nothing accepted is dropped unanswered later.
 * - An error message is one line and never quotes a value the agent sent, only its type.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isObject } from '../api/index.js';

export const JsonRpcCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  InvalidParams: -32602,
} as const;

export type AgentLine =
  /** Nothing to do: a blank line, or a notification MCP cannot take (never answered). */
  | { readonly kind: 'ignored' }
  | { readonly kind: 'message'; readonly message: JSONRPCMessage }
  /** Answer the agent with this error; nothing of the message runs. */
  | {
      readonly kind: 'refused';
      readonly id: RequestId | null;
      readonly code: number;
      readonly message: string;
    };

type Refused = Extract<AgentLine, { kind: 'refused' }>;

const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** The type of a value, for a message (never the value: it is the agent's, maybe large). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) ? 'a number' : 'a number with a fraction';
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'a boolean';
    default:
      return typeof value;
  }
}

function refuse(id: RequestId | null, code: number, message: string): Refused {
  return { kind: 'refused', id, code, message };
}

/** Checks one line of the agent's (without its newline). */
export function checkAgentLine(line: string): AgentLine {
  if (line.trim() === '') return { kind: 'ignored' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return refuse(null, JsonRpcCodes.ParseError, 'parse error: not valid JSON');
  }
  return checkAgentMessage(value);
}

/** Checks one parsed message of the agent's. */
export function checkAgentMessage(value: unknown): AgentLine {
  const invalid = (id: RequestId | null, what: string) =>
    refuse(id, JsonRpcCodes.InvalidRequest, `invalid request: ${what}`);
  if (Array.isArray(value)) return invalid(null, 'a batch: MCP takes one message per line');
  if (!isObject(value)) return invalid(null, 'not a JSON-RPC 2.0 message (an object)');
  const hasId = value.id !== undefined;
  if ('method' in value) {
    const answerId = isRequestId(value.id) ? value.id : null;
    if (value.jsonrpc !== '2.0') return invalid(answerId, 'jsonrpc must be "2.0"');
    if (hasId && answerId === null)
      return invalid(null, `id must be a string or an integer, not ${typeName(value.id)}`);
    if (typeof value.method !== 'string')
      return invalid(answerId, `method must be a string, not ${typeName(value.method)}`);
    if ('result' in value || 'error' in value)
      return invalid(answerId, 'a request has no result or error');
    return requestOrNotification(value.method, answerId, value.params);
  }
  // A response: the agent's answer to one of the gateway's requests.
  if (value.jsonrpc !== '2.0') return invalid(null, 'jsonrpc must be "2.0"');
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  // JSON-RPC lets an error say null when it cannot tell which request it answers.
  const nullErrorId = value.id === null && hasError && !hasResult;
  if (hasId && !isRequestId(value.id) && !nullErrorId)
    return invalid(null, `id must be a string or an integer, not ${typeName(value.id)}`);
  const id = isRequestId(value.id) ? value.id : undefined;
  if (!hasResult && !hasError)
    return invalid(null, 'neither a request (no method) nor a response (no result or error)');
  if (hasResult && hasError) return invalid(null, 'a response has a result or an error, not both');
  if (hasResult) {
    const result = value.result;
    if (!isObject(result) || (result._meta !== undefined && !isObject(result._meta)))
      return invalid(null, 'result must be an object (its _meta too)');
    if (id === undefined) return invalid(null, 'a result needs the id of its request');
    return { kind: 'message', message: { jsonrpc: '2.0', id, result } };
  }
  const error = value.error;
  if (!isObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== 'string')
    return invalid(null, 'error must be an object with an integer code and a string message');
  return {
    kind: 'message',
    message: {
      jsonrpc: '2.0',
      ...(id === undefined ? {} : { id }),
      error: {
        code: error.code as number,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    },
  };
}

function requestOrNotification(method: string, id: RequestId | null, params: unknown): AgentLine {
  if (params !== undefined && !isObject(params) && !Array.isArray(params))
    return refuse(
      id,
      JsonRpcCodes.InvalidRequest,
      `invalid request: params must be an object, not ${typeName(params)}`,
    );
  const problem = Array.isArray(params)
    ? 'params must be an object (MCP takes named params), not an array'
    : metaProblem(params?._meta);
  if (problem !== undefined)
    return id === null
      ? { kind: 'ignored' }
      : refuse(id, JsonRpcCodes.InvalidParams, `${method}: ${problem}`);
  const rest = params === undefined ? {} : { params: params as Record<string, unknown> };
  return {
    kind: 'message',
    message:
      id === null ? { jsonrpc: '2.0', method, ...rest } : { jsonrpc: '2.0', id, method, ...rest },
  };
}

/** What the SDK's schema of `params._meta` would refuse, if anything. */
function metaProblem(meta: unknown): string | undefined {
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return `params._meta must be an object, not ${typeName(meta)}`;
  const token = meta.progressToken;
  if (token !== undefined && !isRequestId(token))
    return `params._meta.progressToken must be a string or an integer, not ${typeName(token)}`;
  const task = meta[RELATED_TASK_META_KEY];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string'))
    return `params._meta["${RELATED_TASK_META_KEY}"] must be an object with a string taskId`;
  return undefined;
}
