/**
 * tools/call, the message an agent sends most, served without the SDK's per-message checks:
 * the SDK's Protocol classifies every incoming message by trying zod schemas in turn, and for
 * a request the failed tries (is it an answer? an error?) cost more than the whole call. This
 * takes tools/call (and the cancellation of one) off the transport before the Protocol sees it
 * and answers exactly as Protocol._onrequest would: the handler's result, or its error's
 * `code`, `message` and `data`; nothing once the agent cancelled.
 *
 * Guarantees: every other message goes to the SDK unchanged and in order; a task-augmented
 * call (params.task) goes to the SDK too (it has task rules of its own); a cancel for a call
 * served here aborts its signal and is not passed on; when the transport closes, every call
 * served here is aborted and answers nothing. It is the one step of the agent transport's
 * inbound pipeline (pool/inbound.ts, the one place a transport's `onmessage` is replaced).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type JSONRPCMessage,
  type RequestId,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { pipeInbound } from '../pool/inbound.js';
import type { CallContext } from './forward.js';
import { isObject } from '../api/index.js';

type Handler = (
  params: Record<string, unknown>,
  context: CallContext,
) => Promise<Record<string, unknown>>;

/** Installs the fast path on a transport the SDK server is already connected to. */
export function serveToolCallsFast(
  transport: Transport,
  handle: Handler,
  log: (message: string) => void,
): void {
  const running = new Map<RequestId, AbortController>();
  const sdkClose = transport.onclose;

  const answer = (message: JSONRPCMessage) =>
    transport
      .send(message)
      .catch((err: unknown) => log(`could not answer the agent: ${String(err)}`));

  function serve(id: RequestId, params: Record<string, unknown>): void {
    const controller = new AbortController();
    const { signal } = controller;
    running.set(id, controller);
    const context: CallContext = {
      signal,
      ...(isObject(params._meta) ? { _meta: params._meta } : {}),
      sendNotification: async (notification: ServerNotification) => {
        if (signal.aborted) return;
        await transport.send({ jsonrpc: '2.0', ...notification }, { relatedRequestId: id });
      },
    };
    Promise.resolve()
      .then(() => handle(params, context))
      .then(
        (result) => {
          if (!signal.aborted) void answer({ jsonrpc: '2.0', id, result });
        },
        (err: unknown) => {
          if (signal.aborted) return;
          const e = (isObject(err) ? err : {}) as {
            code?: unknown;
            message?: unknown;
            data?: unknown;
          };
          const code =
            typeof e.code === 'number' && Number.isSafeInteger(e.code)
              ? e.code
              : ErrorCode.InternalError;
          const message = typeof e.message === 'string' ? e.message : 'Internal error';
          void answer({
            jsonrpc: '2.0',
            id,
            error: { code, message, ...(e.data === undefined ? {} : { data: e.data }) },
          });
        },
      )
      .finally(() => {
        if (running.get(id) === controller) running.delete(id);
      });
  }

  // Takes tools/call, and the cancel of a call served here; the rest goes on to the SDK.
  pipeInbound(transport, [
    (message) => {
      if (!('method' in message)) return false;
      const params = message.params;
      if (
        message.method === 'tools/call' &&
        'id' in message &&
        isObject(params) &&
        params.task === undefined
      ) {
        serve(message.id, params);
        return true;
      }
      if (message.method === 'notifications/cancelled' && isObject(params)) {
        const controller = running.get(params.requestId as RequestId);
        if (controller) {
          running.delete(params.requestId as RequestId);
          controller.abort(params.reason);
          return true;
        }
      }
      return false;
    },
  ]);
  transport.onclose = () => {
    for (const controller of running.values()) controller.abort();
    running.clear();
    sdkClose?.();
  };
}
