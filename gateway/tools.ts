/**
 * tools: the session's Ready servers' tools listed under visible names (catalog.ts), calls
 * routed to their server, and the gateway's own tools (`--meta-tools`: meta-tools.ts; the
 * language servers' `lsp_*`: lsp-tools.ts) served beside them.
 *
 * Guarantees:
 * - tools/call is forwarded raw: arguments, `_meta`, results (structured content, resource
 *   links, `_meta`, unknown fields) pass untouched; a server's protocol error reaches the agent
 *   as it was sent. Anything else (unavailable, timed out, connection lost) is an `isError`
 *   result the model can read; a name that left the listing answers with the `why` of its
 *   server and the fix.
 * - A result teaches the resource index the URIs it links or embeds, and the task table the
 *   task it created, so reads and task requests find their server.
 * - Own tools are listed first, in the order served; a call of one of their names goes to
 *   them, never to a server. With `listForwarded` false only they are listed (the servers'
 *   tools stay callable by name).
 * - `handleToolCall` is the whole of a tools/call: the SDK's fallback handler and the fast path
 *   (fast-calls.ts) both call it, so the two answer alike.
 */
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from './catalog.js';
import { asObject, type GatewayContext } from './context.js';
import { messageOf, relayed, type CallContext } from './forward.js';
import { pageResult } from './paging.js';
import type { ResourceIndex } from './resource-index.js';
import type { TaskTable } from './task-table.js';

/** Tools the gateway answers itself instead of forwarding. */
export interface OwnTools {
  /** Every tool it serves: a call of one of these names comes here, listed now or not. */
  readonly tools: readonly Tool[];
  /**
   * What tools/list shows of them now, listed before the servers' tools in this order.
   * Absent: all of `tools`, always.
   */
  listed?(): Promise<readonly Tool[]>;
  /** Serves one of `tools`, by its name. */
  call(
    name: string,
    args: Record<string, unknown>,
    context: CallContext,
  ): Promise<Record<string, unknown>>;
}

export interface ToolCalls {
  /** Serves one tools/call (needs no `this`: the fast path holds it as a function). */
  readonly handleToolCall: (
    params: Record<string, unknown>,
    context: CallContext,
  ) => Promise<Record<string, unknown>>;
  /** Adds tools the gateway serves itself. */
  serveOwn(own: OwnTools): void;
}

export interface ToolsOptions {
  readonly catalog: Catalog;
  /** Learns the URIs tool results link. */
  readonly resourceIndex: ResourceIndex;
  /** Learns the tasks tool calls create. */
  readonly tasks: TaskTable;
  /** False: tools/list shows the own tools only (`--meta-tools=only`). */
  readonly listForwarded: boolean;
}

/** A tool call's failure as a result the model reads. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export function registerTools(context: GatewayContext, options: ToolsOptions): ToolCalls {
  const { server, port, forwarder, pager } = context;
  const { catalog, resourceIndex, tasks, listForwarded } = options;
  const owners: OwnTools[] = [];
  const ownByName = new Map<string, OwnTools>();

  async function callTool(
    visible: string,
    params: Record<string, unknown>,
    extra: CallContext,
  ): Promise<Record<string, unknown>> {
    const route = await catalog.routeOf(catalog.tools, visible);
    if (!route) {
      const former = catalog.tools.formerServer(visible);
      if (former === undefined)
        return errorResult(`no tool named ${visible}; list the tools again`);
      const why = await port.why(former);
      return errorResult(`${why.message}: ${why.action}`);
    }
    try {
      const result = await forwarder.forward(
        route.server,
        { method: 'tools/call', params: { ...params, name: route.name } },
        extra,
      );
      resourceIndex.learnLinks(route.server, result);
      tasks.learn(route.server, result);
      return result;
    } catch (err) {
      // The server's own protocol error is the agent's to see as it was; anything else
      // (unavailable, timed out, connection lost) is a result the model can read.
      if (err instanceof McpError && err.code !== Number(ErrorCode.RequestTimeout))
        throw relayed(err);
      return errorResult(messageOf(err));
    }
  }

  async function handleToolCall(
    params: Record<string, unknown>,
    extra: CallContext,
  ): Promise<Record<string, unknown>> {
    const name = params.name;
    if (typeof name !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name (a string)');
    const own = ownByName.get(name);
    if (own !== undefined) return own.call(name, asObject(params.arguments), extra);
    return callTool(name, params, extra);
  }

  // tools/call is served raw (the fallback handler): the SDK's typed handler would validate
  // and rebuild the result, and the agent must get the server's result as it was sent.
  context.serveRaw('tools/call', (request, extra) =>
    handleToolCall(asObject(request.params), extra),
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) =>
    pageResult(
      await pager.page('tools', request.params?.cursor, async () => {
        const own = await ownListed();
        if (!listForwarded) return own;
        const { tools } = await catalog.refresh();
        return own.length === 0 ? tools : [...own, ...tools];
      }),
      'tools',
    ),
  );

  async function ownListed(): Promise<Tool[]> {
    const lists = await Promise.all(
      owners.map((own) => (own.listed ? own.listed() : Promise.resolve(own.tools))),
    );
    return lists.flat();
  }

  return {
    handleToolCall,
    serveOwn(own) {
      owners.push(own);
      for (const tool of own.tools) ownByName.set(tool.name, own);
    },
  };
}
