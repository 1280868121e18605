/**
 * Listing a server's tools and prompts, every page.
 *
 * Guarantees:
 * - Follows `nextCursor` until the server stops sending one, so servers that paginate show
 *   all their tools, not the first page.
 * - Cannot loop forever on a server that repeats a cursor or never stops: a repeated cursor
 *   or more than MAX_PAGES pages is an error.
 * - Prompts are listed only when the server declares the `prompts` capability (asking a
 *   server for what it does not offer is a protocol error). Tools are listed when declared;
 *   a server that does not declare `tools` and answers "method not found" simply has none.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, McpError, type Prompt, type Tool } from '@modelcontextprotocol/sdk/types.js';

export const MAX_PAGES = 1000;

async function allPages<T>(
  what: string,
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; n < MAX_PAGES; n += 1) {
    const { items, nextCursor } = await page(cursor);
    out.push(...items);
    if (nextCursor === undefined || nextCursor === '') return out;
    if (seen.has(nextCursor))
      throw new Error(`${what}: the server repeated cursor ${JSON.stringify(nextCursor)}`);
    seen.add(nextCursor);
    cursor = nextCursor;
  }
  throw new Error(`${what}: more than ${MAX_PAGES} pages`);
}

export async function listAllTools(client: Client, options: RequestOptions): Promise<Tool[]> {
  const declared = client.getServerCapabilities()?.tools !== undefined;
  try {
    return await allPages('tools/list', async (cursor) => {
      const r = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
      return { items: r.tools, nextCursor: r.nextCursor };
    });
  } catch (err) {
    const refused = err instanceof McpError && err.code === Number(ErrorCode.MethodNotFound);
    if (!declared && refused) return [];
    throw err;
  }
}

export async function listAllPrompts(client: Client, options: RequestOptions): Promise<Prompt[]> {
  if (client.getServerCapabilities()?.prompts === undefined) return [];
  return allPages('prompts/list', async (cursor) => {
    const r = await client.listPrompts(cursor === undefined ? undefined : { cursor }, options);
    return { items: r.prompts, nextCursor: r.nextCursor };
  });
}
