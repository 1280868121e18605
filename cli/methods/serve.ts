/**
 * The daemon's side of `mcpctl serve`: what a serve process needs from the session it opened
 * (`session.open`), over the socket. Each method is a thin wrapper around the same
 * LocalSessionPort that `serve --no-daemon` uses in-process, so both modes behave alike.
 *
 * Guarantees:
 * - `serve.subscribe` makes this connection hear `serve.listChanged` (once per settled burst
 *   that changed the registry) and `serve.pendingApproval` for that session, starting right
 *   after the reply; the subscription ends when the connection closes (or the session does).
 *   Subscribing twice to one session is one subscription.
 * - `serve.callTool` / `serve.getPrompt` carry a `callId` chosen by the caller, unique among its
 *   calls in flight on this connection; `serve.cancel {callId}` aborts that call's signal (the
 *   RPC layer has no cancellation of its own). Call ids are per connection: nobody cancels
 *   another connection's call. Calls still running when the connection closes are aborted.
 * - `serve.decide` requires the approval hash the question showed and decides about that
 *   config only; when the server's config changed since, nothing is decided (`decided: false`).
 * - A call to a server whose tools are unavailable fails with code -32004 and the `why`
 *   message and action as its text (see mapDomainError), which the bridge returns as an
 *   `isError` result.
 */
import { z } from 'zod';
import type { Session } from '../../controller/session.js';
import { LocalSessionPort } from '../../gateway/local-port.js';
import {
  LIST_CHANGED,
  PENDING_APPROVAL,
  type ListChangedParams,
  type PendingApprovalParams,
} from '../serve/protocol.js';
import type {
  ApprovalRequest,
  DecideOutcome,
  ServerTools,
  WhyText,
} from '../../gateway/session-port.js';
import { RpcCodes, RpcError } from '../rpc-protocol.js';
import { method, type MethodTable, type RpcConnection } from '../rpc-server.js';
import type { MethodContext } from './context.js';

/** What one connection has going: subscriptions by session, calls in flight by callId. */
interface ConnectionState {
  readonly subscriptions: Map<string, LocalSessionPort>;
  readonly calls: Map<string, AbortController>;
}

/** Longest wait `serve.settled` accepts: a caller cannot park a request forever. */
const MAX_SETTLE_WAIT_MS = 60_000;

export function serveMethods(ctx: MethodContext): MethodTable {
  const states = new WeakMap<RpcConnection, ConnectionState>();

  function stateOf(conn: RpcConnection): ConnectionState {
    let state = states.get(conn);
    if (!state) {
      const created: ConnectionState = { subscriptions: new Map(), calls: new Map() };
      states.set(conn, created);
      state = created;
      conn.onClose(async () => {
        for (const controller of created.calls.values())
          controller.abort(new Error('the serve process went away'));
        created.calls.clear();
        const ports = [...created.subscriptions.values()];
        created.subscriptions.clear();
        await Promise.all(ports.map((p) => p.close()));
      });
    }
    return state;
  }

  function sessionOf(sessionId: string): Session {
    const session = ctx.daemon.session(sessionId);
    if (session) return session;
    throw new RpcError(
      RpcCodes.NotFound,
      `no session named ${sessionId}; open one with session.open first`,
    );
  }

  /** Runs `fn` with an AbortSignal that `serve.cancel {callId}` (or a hang-up) aborts. */
  async function cancellable<T>(
    conn: RpcConnection,
    callId: string,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const { calls } = stateOf(conn);
    if (calls.has(callId))
      throw new RpcError(RpcCodes.InvalidParams, `invalid params: callId ${callId} is in use`);
    const controller = new AbortController();
    calls.set(callId, controller);
    try {
      return await fn(controller.signal);
    } finally {
      if (calls.get(callId) === controller) calls.delete(callId);
    }
  }

  const bySession = z.object({ sessionId: z.string().min(1) });
  const callId = z.string().min(1);
  return {
    'serve.subscribe': method(
      bySession,
      '{}: this connection hears serve.listChanged and serve.pendingApproval of the session until it closes',
      (p, call) => {
        const session = sessionOf(p.sessionId);
        const { subscriptions } = stateOf(call.conn);
        if (subscriptions.has(p.sessionId)) return {};
        const port = new LocalSessionPort(session);
        subscriptions.set(p.sessionId, port);
        // After the reply: the caller knows it is subscribed before the first notification.
        call.afterReply(() => {
          if (call.conn.closed || subscriptions.get(p.sessionId) !== port) return;
          port.onListChanged(() => {
            const params: ListChangedParams = { sessionId: p.sessionId };
            call.conn.notify(LIST_CHANGED, params);
          });
          port.onPendingApproval((request) => {
            const params: PendingApprovalParams = { sessionId: p.sessionId, request };
            call.conn.notify(PENDING_APPROVAL, params);
          });
        });
        return {};
      },
    ),
    'serve.list': method(
      bySession,
      '{ servers: [{ server, tools, prompts }] }: the Ready servers of the session, by name',
      async (p): Promise<{ servers: ServerTools[] }> => ({
        servers: await new LocalSessionPort(sessionOf(p.sessionId)).list(),
      }),
    ),
    'serve.settled': method(
      bySession.extend({ timeoutMs: z.number().int().nonnegative().max(MAX_SETTLE_WAIT_MS) }),
      '{}: answers when the session has nothing to reconcile, or after timeoutMs',
      async (p) => {
        await new LocalSessionPort(sessionOf(p.sessionId)).settled(p.timeoutMs);
        return {};
      },
    ),
    'serve.pendingApprovals': method(
      bySession,
      '{ requests: ApprovalRequest[] }: the gated servers of the session that are promptable now',
      async (p): Promise<{ requests: ApprovalRequest[] }> => ({
        requests: await new LocalSessionPort(sessionOf(p.sessionId)).pendingApprovals(),
      }),
    ),
    'serve.callTool': method(
      bySession.extend({
        server: z.string().min(1),
        tool: z.string().min(1),
        arguments: z.record(z.unknown()).optional(),
        callId,
        timeout: z.number().int().positive().optional(),
      }),
      'CallToolResult: calls a tool on the connection serving the server now; cancel with serve.cancel',
      (p, call) => {
        const port = new LocalSessionPort(sessionOf(p.sessionId));
        return cancellable(call.conn, p.callId, (signal) =>
          port.callTool(p.server, p.tool, p.arguments, {
            signal,
            ...(p.timeout === undefined ? {} : { timeout: p.timeout }),
          }),
        );
      },
    ),
    'serve.getPrompt': method(
      bySession.extend({
        server: z.string().min(1),
        prompt: z.string().min(1),
        arguments: z.record(z.string()).optional(),
        callId,
      }),
      'GetPromptResult: gets a prompt from the server; cancel with serve.cancel',
      (p, call) => {
        const port = new LocalSessionPort(sessionOf(p.sessionId));
        return cancellable(call.conn, p.callId, (signal) =>
          port.getPrompt(p.server, p.prompt, p.arguments, { signal }),
        );
      },
    ),
    'serve.cancel': method(
      z.object({ callId }),
      '{ cancelled }: aborts a call of this connection; false when it already finished',
      (p, call) => {
        const controller = stateOf(call.conn).calls.get(p.callId);
        controller?.abort(new Error('cancelled by the client'));
        return { cancelled: controller !== undefined };
      },
    ),
    'serve.why': method(
      bySession.extend({ server: z.string().min(1) }),
      '{ name, reason, message, action }: why a server is (un)available, for any name',
      async (p): Promise<WhyText> => new LocalSessionPort(sessionOf(p.sessionId)).why(p.server),
    ),
    'serve.decide': method(
      bySession.extend({
        server: z.string().min(1),
        decision: z.enum(['approve', 'approve-session', 'reject']),
        hash: z.string().regex(/^[0-9a-f]{64}$/, 'the approval hash of the config shown'),
      }),
      '{ decided, reason? }: approves (persisted or for the session) or rejects the config of `hash`; a config that changed since is not decided about',
      (p): Promise<DecideOutcome> =>
        new LocalSessionPort(sessionOf(p.sessionId)).decide(p.server, p.decision, p.hash),
    ),
  };
}
