/**
 * Forwarding one request of this agent to one server of its session, and the one mapping of a
 * failed request to the agent's answer. Every capability file forwards through here.
 *
 * Guarantees:
 * - A forwarded request is made as this agent (one `caller` for all its requests: the pool
 *   counts agents by identity) and carries the agent's cancellation (its signal).
 * - When the agent's request names a progress token, the server's progress comes back to this
 *   agent under that token (the pool stops it when the call ends: pool/agent-routing.ts).
 * - `forward` leaves a failure as it was (tools/call turns most into a result: tools.ts);
 *   `relay` maps it once for every other request (`asMcpError`): a server's own protocol error
 *   reaches the agent as the server sent it (same code, message and data), anything else is an
 *   InternalError with its message.
 * - `allPages` follows a server's cursors to the end of its list, stopping at a cursor it gave
 *   before and after MAX_SERVER_PAGES pages.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { SessionCaller, SessionRequestOptions } from '../controller/session-attachment.js';
import type { McpMessage } from '../pool/types.js';
import type { SessionPort } from './session-port.js';
import { messageOf } from '../api/index.js';

/** What the SDK gives a request handler. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** What a forwarded call needs of the request it serves (the SDK's extra, or fast-calls.ts). */
export type CallContext = Pick<Extra, 'signal' | 'sendNotification' | '_meta'>;

/** A server that keeps sending cursors is cut off here (like the pool's listing). */
const MAX_SERVER_PAGES = 1000;

export class Forwarder {
  constructor(
    private readonly port: Pick<SessionPort, 'request'>,
    /** This agent as the maker of a request. */
    private readonly caller: SessionCaller,
    private readonly log: (message: string) => void,
  ) {}

  /** Forwards a request to `server`; a failure is left as it was. */
  forward(
    server: string,
    message: McpMessage,
    context: CallContext,
  ): Promise<Record<string, unknown>> {
    return this.port.request(server, message, this.#options(message, context));
  }

  /** Forwards a request to `server`; a failure is the agent's answer (`asMcpError`). */
  async relay(
    server: string,
    message: McpMessage,
    context: CallContext,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.port.request(server, message, this.#options(message, context));
    } catch (err) {
      throw asMcpError(err);
    }
  }

  /** Every page of one server's list (`key` names the items in the result). */
  async allPages<T>(server: string, method: string, key: string): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let n = 0; n < MAX_SERVER_PAGES; n += 1) {
      const result = await this.port.request(
        server,
        { method, ...(cursor === undefined ? {} : { params: { cursor } }) },
        { caller: this.caller },
      );
      const items = result[key];
      if (Array.isArray(items)) out.push(...(items as T[]));
      const next = result.nextCursor;
      if (typeof next !== 'string' || next === '' || seen.has(next)) return out;
      seen.add(next);
      cursor = next;
    }
    return out;
  }

  #options(message: McpMessage, context: CallContext): SessionRequestOptions {
    const meta = message.params?._meta as { progressToken?: unknown } | undefined;
    const token = meta?.progressToken;
    return {
      signal: context.signal,
      caller: this.caller,
      ...(typeof token === 'string' || typeof token === 'number'
        ? {
            onprogress: (progress) => {
              void context
                .sendNotification({
                  method: 'notifications/progress',
                  params: { ...progress, progressToken: token },
                })
                .catch((err: unknown) => this.log(`could not send progress: ${messageOf(err)}`));
            },
          }
        : {}),
    };
  }
}

/** A failure of a request other than a tool call: the server's own error, else ours. */
export function asMcpError(err: unknown): Error {
  if (err instanceof McpError) return relayed(err);
  return new McpError(ErrorCode.InternalError, messageOf(err));
}

/**
 * A server's error as the agent would have had it straight from the server: same code, message
 * and data. (An McpError's message carries an "MCP error N:" prefix the agent's SDK adds again.)
 */
class RelayedError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

export function relayed(err: McpError): Error {
  return new RelayedError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
}

/** The message of anything thrown: api/'s, re-exported for the gateway's modules. */
export { messageOf };
