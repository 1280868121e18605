/**
 * An MCP message too large for the agent it goes to (api/limits.ts), and what goes instead:
 * one rule for the gateway's transport on the daemon's socket (cli/rpc/gateway-socket.ts), serve's
 * own stdio (`--no-daemon`, cli/serve/stdio-transport.ts) and the lines serve passes on from a
 * daemon (cli/serve/keeper.ts, the last guard).
 *
 * Guarantees:
 * - An answer past the limit becomes the error answer for its id (LIMIT_EXCEEDED_CODE, the
 *   message naming its size and the limit): the agent's request fails, nothing else.
 * - Any other message past it (a notification, a request to the agent) is not sent; `dropped`
 *   says what it was, for the log.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { LIMIT_EXCEEDED_CODE, sizeText } from '../api/limits.js';

export type Oversize =
  | { readonly answer: RequestId; readonly code: number; readonly message: string }
  | { readonly dropped: string };

/** What the agent gets for the answer to its request that is `bytes` long, over `max`. */
export function answerTooLargeMessage(bytes: number, max: number): string {
  return `the answer to this request is ${sizeText(bytes)}, over the ${sizeText(max)} message limit; mcpctl dropped it: ask for less at a time`;
}

/** What a message of `bytes`, over `max`, that is not an answer was, for the log. */
export function droppedText(what: string, bytes: number, max: number): string {
  return `${what} of ${sizeText(bytes)}, over the ${sizeText(max)} message limit`;
}

/** Undefined when `text` (the JSON of `message`) fits in `max` bytes; else what to do instead. */
export function oversizeOf(
  message: JSONRPCMessage,
  text: string,
  max: number,
): Oversize | undefined {
  // Cheap first: a string's UTF-8 length is at least its length and at most thrice it.
  if (text.length <= max && (text.length * 3 <= max || Buffer.byteLength(text) <= max))
    return undefined;
  const bytes = Buffer.byteLength(text);
  if (!('method' in message) && 'id' in message && message.id !== undefined)
    return {
      answer: message.id,
      code: LIMIT_EXCEEDED_CODE,
      message: answerTooLargeMessage(bytes, max),
    };
  return { dropped: droppedText('method' in message ? message.method : 'a message', bytes, max) };
}
