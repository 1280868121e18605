/**
 * completion/complete: for `ref/prompt` by the prompt's visible name (catalog.ts), for
 * `ref/resource` by the template a server listed (resources.ts).
 *
 * Guarantees: the request goes to the server of the prompt or template, with the server's own
 * prompt name and everything else the agent sent; a server that does not declare completions
 * is not asked (no values, nothing more). A prompt or template no server of the session lists
 * (after listing again once) is InvalidParams naming it. The result and a server's protocol
 * error reach the agent as the server sent them (forward.ts).
 */
import { CompleteRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from './catalog.js';
import type { GatewayContext } from './context.js';
import type { Resources } from './resources.js';

export function registerCompletion(
  context: GatewayContext,
  catalog: Catalog,
  resources: Resources,
): void {
  const { index } = resources;
  context.server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const ref = request.params.ref;
    let target: string;
    let params: Record<string, unknown> = request.params;
    if (ref.type === 'ref/prompt') {
      const route = await catalog.routeOf(catalog.prompts, ref.name);
      if (!route)
        throw new McpError(
          ErrorCode.InvalidParams,
          `no prompt named ${ref.name}; list the prompts again`,
        );
      target = route.server;
      params = { ...request.params, ref: { ...ref, name: route.name } };
    } else {
      let owner = index.templateOwner(ref.uri);
      if (owner === undefined) {
        await resources.listTemplates();
        owner = index.templateOwner(ref.uri) ?? index.route(ref.uri);
      }
      if (owner === undefined)
        throw new McpError(
          ErrorCode.InvalidParams,
          `no server of this session lists resource template ${JSON.stringify(ref.uri)}`,
        );
      target = owner;
    }
    const servers = await context.listing();
    if (!servers.find((s) => s.server === target)?.capabilities?.completions)
      return { completion: { values: [], hasMore: false } };
    return context.forwarder.relay(target, { method: 'completion/complete', params }, extra);
  });
}
