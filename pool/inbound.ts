/**
 * The steps a transport's incoming messages take before the SDK sees them: the one place that
 * replaces a transport's `onmessage` (an upstream server's, pool/connection.ts; an agent's,
 * gateway/fast-calls.ts).
 *
 * Why it is one place: every step wrapped `onmessage` on its own, so the order messages took
 * was the order the wraps happened to run in. Here a connection declares its steps once, as a
 * list read top to bottom.
 *
 * Guarantees:
 * - Each message runs the steps in list order; the first step that returns `true` took it, and
 *   no later step nor the SDK sees it. A message no step takes reaches the handler the SDK
 *   installed on `connect`, unchanged, with its `extra`, in the order it came.
 * - Nothing is allocated per message (one closure per transport, made here).
 * - Install once per transport, after the SDK's `connect` (which sets the SDK's handler).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/** One step: `true` when it took the message (later steps and the SDK never see it). */
export type InboundStep = (message: JSONRPCMessage, extra: MessageExtraInfo | undefined) => boolean;

/** Puts `steps` in front of the handler the SDK installed on `transport`. */
export function pipeInbound(transport: Transport, steps: readonly InboundStep[]): void {
  const sdk = transport.onmessage;
  const count = steps.length;
  transport.onmessage = (message, extra) => {
    for (let i = 0; i < count; i += 1) if (steps[i](message, extra)) return;
    sdk?.(message, extra);
  };
}
