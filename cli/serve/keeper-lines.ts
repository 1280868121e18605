/**
 * The few lines `mcpctl serve`'s session keeper (keeper.ts) writes itself or reads more of than
 * a peek (mcp-peek.ts): its error answers, its own requests of a restore, an id renamed on the
 * way between the agent and a later gateway, and what a daemon's last words say.
 *
 * Guarantees: every line built here is one JSON-RPC message and ends with its newline; a line
 * that is not JSON reads as nothing (no id, no notice of a reconnect now), never as a throw.
 */
import { isObject, type ReconnectMode } from '../rpc/protocol.js';
import { idText } from './mcp-peek.js';

/** An error answer to the request `id` (its JSON text), as a line. */
export function errorLine(id: string, code: number, message: string): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code, message })}}\n`);
}

/** `"method":…,"params":…` of a request serve sends itself. */
export function methodAndParams(method: string, params: Record<string, unknown>): string {
  return `"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}`;
}

/** The line with its top-level `key` (or `params.requestId`) set to the id text `id`. */
export function withId(line: Buffer, id: string, key: 'id' | 'requestId'): Buffer {
  const message = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
  const value: unknown = JSON.parse(id);
  if (key === 'id') message.id = value;
  else if (isObject(message.params)) message.params = { ...message.params, requestId: value };
  return Buffer.from(`${JSON.stringify(message)}\n`);
}

/** `params.requestId` of a notifications/cancelled line, as id text. */
export function requestIdOf(line: Buffer): string | undefined {
  try {
    const message: unknown = JSON.parse(line.toString('utf8'));
    const id = isObject(message) && isObject(message.params) ? message.params.requestId : undefined;
    return typeof id === 'string' || typeof id === 'number'
      ? idText(JSON.stringify(id))
      : undefined;
  } catch {
    return undefined;
  }
}

export function errorOf(line: Buffer): string | undefined {
  try {
    const message: unknown = JSON.parse(line.toString('utf8'));
    if (!isObject(message) || !isObject(message.error)) return undefined;
    return typeof message.error.message === 'string' ? message.error.message : 'an error';
  } catch {
    return 'an answer that is not JSON';
  }
}

export function stopNoticeOf(line: Buffer): { reconnect: ReconnectMode; reason: string } {
  try {
    const message: unknown = JSON.parse(line.toString('utf8'));
    const params = isObject(message) && isObject(message.params) ? message.params : {};
    return {
      reconnect: params.reconnect === 'now' ? 'now' : 'on-demand',
      reason: typeof params.reason === 'string' ? params.reason : 'stopped',
    };
  } catch {
    return { reconnect: 'on-demand', reason: 'stopped' };
  }
}
