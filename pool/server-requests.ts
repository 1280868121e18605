/**
 * A server's requests to its client (the pool), passed on to agents: what the pool's client
 * declares, the handlers it installs, and how a request is forwarded and ended. Who is asked
 * is decided by the agent router (ask-rules.ts); this file only carries the request there and
 * the answer back.
 *
 * Guarantees:
 * - `install(client)` (before connect) declares `sampling`, `elicitation` (form mode) and
 *   `roots` (listChanged) to the server, and installs the handlers of `sampling/createMessage`,
 *   `elicitation/create` and `roots/list` (answered with `roots()`). The request reaches the
 *   agent with its params untouched.
 * - One recipient is asked alone; several are asked at once, the first answer wins and the
 *   others' requests are aborted; when all fail the server hears the first one's error. A
 *   recipient's callback that throws at once fails like one that rejects later.
 * - The server's cancellation, and the connection's end (`link.closed`), abort the forwarded
 *   request while it is pending, never after it ended. No other signal is used: over stdio the
 *   SDK's `relatedRequestId` never reaches the wire, and a `progressToken` in the request is the
 *   server's own token for it.
 * - The SDK (1.32) ignores `notifications/cancelled` for request id 0 (a truthiness test,
 *   typescript-sdk#2283), and 0 is the id of the first request a server sends: `watchCancel`
 *   sees it before the SDK does and aborts the forwarded request 0 itself.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  ClientCapabilities,
  JSONRPCMessage,
  RequestId,
  Root,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PoolError } from './errors.js';
import type { ServerLink } from './server-link.js';
import type { McpMessage, PoolCaller } from './types.js';

/** What the pool's client declares to every server: it can relay all of these to agents. */
export const POOL_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  // Form mode only: most agents declare no more, and a server that saw url mode would offer
  // what (as far as it can tell) nobody behind mcpctl can answer.
  elicitation: {},
  roots: { listChanged: true },
};

/**
 * A server→client request as it came, params untouched (the SDK's own request schemas would
 * drop fields it does not know; the SDK still validates the request and the answer itself).
 */
function forwarded<M extends string>(method: M) {
  return z
    .object({ method: z.literal(method), params: z.record(z.unknown()).optional() })
    .passthrough();
}

const SamplingRequest = forwarded('sampling/createMessage');
const ElicitationRequest = forwarded('elicitation/create');
const RootsRequest = forwarded('roots/list');

export interface ServerRequestsDeps {
  readonly link: ServerLink;
  /** Who is asked (ask-rules.ts); throws the error the server gets when nobody is. */
  readonly recipients: (message: McpMessage) => readonly PoolCaller[];
  /** The answer to `roots/list`. */
  readonly roots: () => Root[];
}

export class ServerRequests {
  readonly #link: ServerLink;
  readonly #recipients: (message: McpMessage) => readonly PoolCaller[];
  readonly #roots: () => Root[];
  /** Aborts the forwarded request the server sent with id 0 (see watchCancel). */
  #cancelZero: AbortController | undefined;

  constructor(deps: ServerRequestsDeps) {
    this.#link = deps.link;
    this.#recipients = deps.recipients;
    this.#roots = deps.roots;
  }

  /** Declares our capabilities and installs the handlers; call before `client.connect`. */
  install(client: Client): void {
    client.registerCapabilities(POOL_CLIENT_CAPABILITIES);
    client.setRequestHandler(SamplingRequest, (request, extra) =>
      this.#answer(request, extra.requestId, extra.signal),
    );
    client.setRequestHandler(ElicitationRequest, (request, extra) =>
      this.#answer(request, extra.requestId, extra.signal),
    );
    client.setRequestHandler(RootsRequest, () => ({ roots: this.#roots() }));
  }

  /** A message from the server, before the SDK Client sees it: the cancel of request 0. */
  watchCancel(message: JSONRPCMessage): void {
    if (
      'method' in message &&
      message.method === 'notifications/cancelled' &&
      !('id' in message) &&
      message.params?.['requestId'] === 0
    ) {
      this.#cancelZero?.abort(new PoolError(`server "${this.#link.server}" cancelled its request`));
    }
  }

  /** A sampling or elicitation request of the server: to its agent (recipients), or refused. */
  async #answer(
    request: { method: string; params?: Record<string, unknown> },
    requestId: RequestId,
    serverSignal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const closed = this.#link.closed;
    if (requestId !== 0) return this.#route(request, [serverSignal, closed]);
    const zero = new AbortController();
    this.#cancelZero = zero;
    try {
      return await this.#route(request, [serverSignal, closed, zero.signal]);
    } finally {
      if (this.#cancelZero === zero) this.#cancelZero = undefined;
    }
  }

  async #route(
    request: { method: string; params?: Record<string, unknown> },
    sources: readonly AbortSignal[],
  ): Promise<Record<string, unknown>> {
    const message: McpMessage = {
      method: request.method,
      ...(request.params !== undefined ? { params: request.params } : {}),
    };
    const recipients = this.#recipients(message);
    const [only] = recipients;
    if (only !== undefined && recipients.length === 1)
      return linked(sources, (signal) => ask(only, message, signal));
    return linked(sources, (signal) => race(recipients, message, signal));
  }
}

/** One agent's answer; a callback that throws at once rejects like one that fails later. */
async function ask(
  agent: PoolCaller,
  message: McpMessage,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  signal.throwIfAborted();
  return agent.request(message, { signal });
}

/**
 * Runs `work` with a signal that aborts when any of `sources` does while `work` is pending,
 * never after: an agent whose request already ended must not hear a cancellation for it.
 */
async function linked<T>(
  sources: readonly AbortSignal[],
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const listeners = sources.map((source) => {
    const onAbort = (): void => controller.abort(source.reason);
    if (source.aborted) onAbort();
    else source.addEventListener('abort', onAbort, { once: true });
    return () => source.removeEventListener('abort', onAbort);
  });
  try {
    return await work(controller.signal);
  } finally {
    for (const remove of listeners) remove();
  }
}

/** Asks every agent at once: the first answer wins and the ones still asking are aborted. */
async function race(
  agents: readonly PoolCaller[],
  message: McpMessage,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const losers = new AbortController();
  try {
    return await Promise.any(
      agents.map((agent) => linked([signal, losers.signal], (own) => ask(agent, message, own))),
    );
  } catch (err) {
    // Everyone failed: the server hears the first agent's error.
    throw err instanceof AggregateError ? (err.errors[0] as unknown) : err;
  } finally {
    losers.abort(new Error('another agent answered first'));
  }
}
