/**
 * prompts: the session's Ready servers' prompts listed under visible names (catalog.ts), and
 * prompts/get routed to their server.
 *
 * Guarantees: a get is forwarded with the server's own prompt name and everything else the
 * agent sent; its result and a server's protocol error reach the agent as the server sent them
 * (forward.ts). A name that left the listing is InvalidParams with the `why` of its server and
 * the fix; a name never listed says to list again.
 */
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from './catalog.js';
import type { GatewayContext } from './context.js';
import { pageResult } from './paging.js';

export function registerPrompts(context: GatewayContext, catalog: Catalog): void {
  const { server, port, forwarder, pager } = context;
  server.setRequestHandler(ListPromptsRequestSchema, async (request) =>
    pageResult(
      await pager.page(
        'prompts',
        request.params?.cursor,
        async () => (await catalog.refresh()).prompts,
      ),
      'prompts',
    ),
  );
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const route = await catalog.routeOf(catalog.prompts, request.params.name);
    if (!route) {
      const former = catalog.prompts.formerServer(request.params.name);
      const why = former === undefined ? undefined : await port.why(former);
      throw new McpError(
        ErrorCode.InvalidParams,
        why
          ? `${why.message}: ${why.action}`
          : `no prompt named ${request.params.name}; list the prompts again`,
      );
    }
    return forwarder.relay(
      route.server,
      { method: 'prompts/get', params: { ...request.params, name: route.name } },
      extra,
    );
  });
}
