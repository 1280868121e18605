/**
 * `mcpctl serve --meta-tools`: two tools whose names and schemas never change, for agents that
 * list tools once and never again (they ignore `tools/list_changed`). One finds the session's
 * current tools (and says why a configured server offers none, and which config files do not
 * parse or validate, so servers may be missing), one calls any of them.
 *
 * Guarantees: the names cannot collide with a forwarded tool (those are `server__tool` or
 * `hint_…`, see tool-names.ts; these have no `__` and another prefix); the search matches every
 * word of the query, case-insensitively, in a tool's name, server or description.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from './catalog.js';
import type { CallContext } from './forward.js';
import type { SessionPort } from './session-port.js';
import { errorResult, type OwnTools, type ToolCalls } from './tools.js';

export const FIND_TOOLS = 'mcpctl_find_tools';
export const CALL_TOOL = 'mcpctl_call_tool';

export const META_TOOLS: readonly Tool[] = [
  {
    name: FIND_TOOLS,
    description:
      "Lists or searches the tools this workspace's MCP servers offer right now (the set changes live as config files change), with each tool's input schema, and says why a configured server offers none (configErrors: config files that do not parse, so their servers may be missing). Call the tools found with mcpctl_call_tool.",
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description:
            'words to look for in tool names, servers and descriptions; omit to list all',
        },
      },
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: CALL_TOOL,
    description:
      'Calls a tool that mcpctl_find_tools listed, by its name (server__tool), with its arguments.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'the tool name as mcpctl_find_tools gave it' },
        arguments: { type: 'object', description: "the tool's arguments, per its input schema" },
      },
      required: ['name'],
    },
  },
];

export interface FoundTool {
  readonly name: string;
  readonly server: string;
  readonly description?: string;
  readonly inputSchema: Tool['inputSchema'];
}

export interface UnavailableServer {
  readonly server: string;
  readonly reason: string;
  readonly message: string;
  readonly action: string;
}

/**
 * `configErrors`: the session's config files that do not parse or validate (a server of one
 * may be missing from `tools` and `unavailable` alike); the answer has the field only when
 * there are some.
 */
export function findTools(
  tools: readonly FoundTool[],
  unavailable: readonly UnavailableServer[],
  query: string | undefined,
  configErrors: readonly string[] = [],
): CallToolResult {
  const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const hit = (t: FoundTool) => {
    const text = `${t.name} ${t.server} ${t.description ?? ''}`.toLowerCase();
    return words.every((w) => text.includes(w));
  };
  const found = tools.filter(hit);
  const structured = {
    tools: found,
    unavailable,
    ...(configErrors.length > 0 ? { configErrors } : {}),
  };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

/** The gateway's own tools that the search finds too (the `lsp_*` tools, lsp-tools.ts). */
export interface FoundOwnTools {
  found(): Promise<{ tools: FoundTool[]; unavailable: UnavailableServer[] }>;
}

/**
 * The two meta tools as tools the gateway serves itself (tools.ts). `mcpctl_call_tool` calls
 * through `tools`, exactly as a tools/call of the tool it names would. `own` tools are found
 * first, before the servers' tools.
 */
export function ownMetaTools(
  catalog: Catalog,
  port: Pick<SessionPort, 'unavailable' | 'configWarnings'>,
  tools: Pick<ToolCalls, 'handleToolCall'>,
  own: readonly FoundOwnTools[] = [],
): OwnTools {
  return {
    tools: META_TOOLS,
    async call(name: string, args: Record<string, unknown>, context: CallContext) {
      if (name === FIND_TOOLS) {
        const listed = (await catalog.refresh()).tools;
        const found = listed.map((t) => ({
          name: t.name,
          server: catalog.tools.get(t.name)?.server ?? '',
          ...(t.description === undefined ? {} : { description: t.description }),
          inputSchema: t.inputSchema,
        }));
        const query = typeof args.query === 'string' ? args.query : undefined;
        const owned = await Promise.all(own.map((o) => o.found()));
        return findTools(
          [...owned.flatMap((o) => o.tools), ...found],
          [...(await port.unavailable()), ...owned.flatMap((o) => o.unavailable)],
          query,
          (await port.configWarnings?.()) ?? [],
        );
      }
      const target = args.name;
      if (typeof target !== 'string' || target === '')
        return errorResult(`${CALL_TOOL} needs "name": a tool name from ${FIND_TOOLS}`);
      const inner = args.arguments;
      return tools.handleToolCall(
        {
          name: target,
          ...(inner === undefined ? {} : { arguments: inner }),
          ...(context._meta ? { _meta: context._meta } : {}),
        },
        context,
      );
    },
  };
}
