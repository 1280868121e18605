/**
 * What every capability file of the gateway is given: one agent connection's MCP server, its
 * session, and the way to its servers. A capability file (tools.ts, prompts.ts, resources.ts,
 * completion.ts, logging.ts, tasks.ts; the language-server tools will be the next) exports
 * `registerX(context, …the tables it shares)`, which sets its handlers on `context.server`;
 * gateway.ts calls each once and holds nothing else of theirs.
 *
 * Guarantees:
 * - `listing()` waits for the session to settle before the agent's first listing only (at
 *   most `firstListWaitMs`, one wait per gateway); a failed wait only costs the wait.
 * - `attachment()` is this agent's attachment to the session from `initialized` until the
 *   gateway detaches, undefined before and after.
 * - `serveRaw` serves a method through the SDK's fallback handler: params reach the handler and
 *   its result reaches the agent as they are, never rebuilt by a schema. A method nobody
 *   registered is answered MethodNotFound.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { SessionAttachment } from '../controller/session-attachment.js';
import type { Extra, Forwarder } from './forward.js';
import type { Pager } from './paging.js';
import type { ServerTools, SessionPort } from './session-port.js';

export type RawHandler = (
  request: JSONRPCRequest,
  extra: Extra,
) => Promise<Record<string, unknown>>;

export interface GatewayContext {
  /** The agent's MCP server (a CheckedServer: bad params are answered -32602). */
  readonly server: Server;
  readonly port: SessionPort;
  readonly forwarder: Forwarder;
  /** Pages every merged list to the agent (one pager: cursors are per connection). */
  readonly pager: Pager;
  /** Where the gateway reports its own problems (never the agent's channel). */
  readonly log: (message: string) => void;
  /** The session's Ready servers now (after the first-list wait). */
  listing(): Promise<ServerTools[]>;
  /** This agent's attachment to the session, once initialized. */
  attachment(): SessionAttachment | undefined;
  /** Serves `method` raw, outside the SDK's typed handlers. */
  serveRaw(method: string, handler: RawHandler): void;
}

/** Params or arguments as an object; anything else as none. */
export function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
