/**
 * Progress of the requests agents send on one connection (McpConnection.request).
 *
 * Guarantees:
 * - Each request that wants progress is sent with a token of ours, unique on the connection
 *   (`mcpctl-N`): two agents' tokens can never clash on a server they share, and an agent's own
 *   token never reaches it (`withProgressToken` replaces or removes it).
 * - `take` dispatches `notifications/progress` here, in the order it arrived, to the handler
 *   of its token while that request is pending (`end` removes it), and drops it otherwise. It
 *   runs in the connection's inbound pipeline, before the SDK Client: the SDK hands progress
 *   over a microtask later than the answer, so the last step before an answer that came in the
 *   same read would be lost.
 */
import type { JSONRPCMessage, Progress } from '@modelcontextprotocol/sdk/types.js';

export class ProgressRoutes {
  /** Handlers of requests in flight, by the token we sent. */
  readonly #handlers = new Map<string, (progress: Progress) => void>();
  #next = 0;

  /** A token for a request whose progress goes to `handler` until `end(token)`. */
  start(handler: (progress: Progress) => void): string {
    const token = `mcpctl-${(this.#next += 1)}`;
    this.#handlers.set(token, handler);
    return token;
  }

  /** The request ended: its progress is dropped from now on. */
  end(token: string): void {
    this.#handlers.delete(token);
  }

  /** An inbound step: takes every progress notification (see the guarantees). */
  take(message: JSONRPCMessage): boolean {
    if (!('method' in message) || message.method !== 'notifications/progress' || 'id' in message)
      return false;
    const { progressToken, ...progress } = (message.params ?? {}) as Record<string, unknown>;
    const handler =
      typeof progressToken === 'string' ? this.#handlers.get(progressToken) : undefined;
    if (handler && typeof progress.progress === 'number') handler(progress as Progress);
    return true;
  }
}

/**
 * The params with the agent's progress token replaced by ours (`token`), or removed when the
 * caller wants no progress: an agent's token must never reach a server shared with others.
 */
export function withProgressToken(
  params: Record<string, unknown> | undefined,
  token: string | undefined,
): Record<string, unknown> | undefined {
  const stripped = withoutProgressToken(params);
  if (token === undefined) return stripped;
  const meta = stripped?.['_meta'];
  const rest = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {};
  return { ...stripped, _meta: { ...rest, progressToken: token } };
}

/** The params without the agent's progress token (the same object when it has none). */
function withoutProgressToken(
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const meta = params?.['_meta'];
  if (params === undefined || typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    return params;
  }
  if (!('progressToken' in meta)) return params;
  const rest: Record<string, unknown> = { ...(meta as Record<string, unknown>) };
  delete rest['progressToken'];
  const others: Record<string, unknown> = { ...params };
  delete others['_meta'];
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}
