/**
 * What a test reads out of an MCP tool result (`tools/call`), whatever typed it: the SDK's
 * `CallToolResult`, the pool's `{ content: unknown[] }`, a bare `unknown`.
 *
 * Guarantees:
 * - `textOf(result)` is the text of the first content item; '' when there is none, it is not
 *   text, or `result` has no content list. It never throws, so it may stand in a failure
 *   message; a check on the text fails on '' as it would on any other wrong text.
 */

export function textOf(result: unknown): string {
  const content = (result as { content?: unknown } | null | undefined)?.content;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  if (typeof first !== 'object' || first === null) return '';
  const { type, text } = first as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' ? text : '';
}
