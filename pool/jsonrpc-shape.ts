/**
 * The shape of a JSON-RPC 2.0 message, checked by hand: the same verdict as the SDK's
 * `JSONRPCMessageSchema` on what decides how a message is handled (request, notification,
 * answer, error), at a fraction of its cost. Every message of a busy server passes here, and a
 * zod union that fails its way to the right branch builds error objects for every miss. The
 * SDK's Protocol still validates each message it handles; this only keeps garbage out.
 *
 * Guarantees: never refuses a message the SDK schema takes; accepts only objects with `jsonrpc: "2.0"` that are a request (`method`
 * string, `id` string or integer, `params` absent or an object), a notification (`method`
 * string, no `id`, `params` absent or an object), an answer (`id`, `result` an object) or an
 * error (`id` or null, `error` with an integer `code` and a string `message`).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isObject } from '../api/index.js';

const isId = (v: unknown): boolean =>
  typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

export function asJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if (typeof value.method === 'string') {
    if (value.params !== undefined && !isObject(value.params)) return undefined;
    if ('id' in value && !isId(value.id)) return undefined;
    return value as unknown as JSONRPCMessage;
  }
  if ('result' in value)
    return isId(value.id) && isObject(value.result)
      ? (value as unknown as JSONRPCMessage)
      : undefined;
  if ('error' in value) {
    const e = value.error;
    const ok =
      (isId(value.id) || value.id === null || value.id === undefined) &&
      isObject(e) &&
      typeof e.code === 'number' &&
      Number.isSafeInteger(e.code) &&
      typeof e.message === 'string';
    return ok ? (value as unknown as JSONRPCMessage) : undefined;
  }
  return undefined;
}
