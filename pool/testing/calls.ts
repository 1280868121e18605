/**
 * Tool calls and prompt gets through `Pool.request`, the way every agent's request goes, for
 * tests. Not exported from `pool/index.ts`.
 */
import type { CallToolResult, GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallOptions, Pool } from '../types.js';

/** `tools/call` of `name` on the connection of `key`; the server's result as it sent it. */
export async function callTool(
  pool: Pool,
  key: string,
  name: string,
  args: Record<string, unknown> | undefined,
  options: CallOptions = {},
): Promise<CallToolResult> {
  const result = await pool.request(
    key,
    { method: 'tools/call', params: { name, ...(args === undefined ? {} : { arguments: args }) } },
    options,
  );
  return result as CallToolResult;
}

/** `prompts/get` of `name` on the connection of `key`. */
export async function getPrompt(
  pool: Pool,
  key: string,
  name: string,
  args: Record<string, string> | undefined,
  options: CallOptions = {},
): Promise<GetPromptResult> {
  const result = await pool.request(
    key,
    { method: 'prompts/get', params: { name, ...(args === undefined ? {} : { arguments: args }) } },
    options,
  );
  return result as GetPromptResult;
}
