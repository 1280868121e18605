/**
 * resources: lists and template lists merged over the servers that declare `resources`, reads
 * and subscriptions routed by the resource index (resource-index.ts). URIs are never
 * rewritten, so a link a tool returned is readable as it is (the index learns such links from
 * tool results: tools.ts).
 *
 * Guarantees:
 * - A list follows every page of every resource server, highest precedence first; a URI or
 *   template two servers list is offered once, the higher-precedence server's (the other is
 *   reported once as a DuplicateResource Warning). A server whose list fails is left out of
 *   that listing and logged; the others are still listed.
 * - A read or subscribe of a URI the index does not know lists resources and templates again
 *   once; still unknown, it is InvalidParams naming the URI. A read's result and a server's
 *   protocol error reach the agent as the server sent them (forward.ts).
 * - Subscribe before `initialized` is InvalidRequest; updates then reach the subscribing agents
 *   only (controller/session-attachment.ts). Unsubscribe of a URI no server serves, or before
 *   `initialized`, succeeds and does nothing.
 */
import {
  ErrorCode,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type Resource,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import type { GatewayContext } from './context.js';
import { asMcpError, messageOf } from './forward.js';
import { pageResult } from './paging.js';
import { ResourceIndex, byPrecedence } from './resource-index.js';
import type { ServerTools } from './session-port.js';

/** What the other capabilities share of this one. */
export interface Resources {
  /** Which server serves a URI: tools teach it links, completion asks it about templates. */
  readonly index: ResourceIndex;
  /** Lists the templates again (and replaces the index's), highest precedence first. */
  listTemplates(): Promise<ResourceTemplate[]>;
}

export function registerResources(context: GatewayContext): Resources {
  const { server, port, forwarder, pager, log } = context;
  const index = new ResourceIndex((uri, kept, dropped) => {
    const message = `servers ${JSON.stringify(kept)} and ${JSON.stringify(dropped)} both list resource ${JSON.stringify(uri)}; ${JSON.stringify(kept)} serves it (higher precedence)`;
    log(message);
    port.warn(dropped, 'DuplicateResource', message);
  });

  /** The servers that declare resources, highest precedence first. */
  async function resourceServers(): Promise<ServerTools[]> {
    return (await context.listing()).filter((s) => s.capabilities?.resources).sort(byPrecedence);
  }

  async function listResources(): Promise<Resource[]> {
    const servers = await resourceServers();
    const lists = await Promise.all(
      servers.map((s) =>
        forwarder
          .allPages<Resource>(s.server, 'resources/list', 'resources')
          .catch((err: unknown) => {
            log(`resources/list of ${s.server} failed: ${messageOf(err)}`);
            return [] as Resource[];
          }),
      ),
    );
    const kept = index.replaceListed(
      servers.map((s, i) => ({ server: s.server, uris: lists[i].map((r) => r.uri) })),
    );
    return lists.flatMap((list, i) => list.filter((_, j) => kept[i][j]));
  }

  async function listTemplates(): Promise<ResourceTemplate[]> {
    const servers = await resourceServers();
    const lists = await Promise.all(
      servers.map((s) =>
        forwarder
          .allPages<ResourceTemplate>(s.server, 'resources/templates/list', 'resourceTemplates')
          .catch((err: unknown) => {
            log(`resources/templates/list of ${s.server} failed: ${messageOf(err)}`);
            return [] as ResourceTemplate[];
          }),
      ),
    );
    index.replaceTemplates(
      servers.map((s, i) => ({ server: s.server, templates: lists[i].map((t) => t.uriTemplate) })),
    );
    // One template listed by two servers is offered once: the higher-precedence server's.
    const seen = new Set<string>();
    return lists.flat().filter((t) => !seen.has(t.uriTemplate) && seen.add(t.uriTemplate));
  }

  /** The server serving `uri`; lists again once when the index does not know it. */
  async function resourceOwner(uri: string): Promise<string> {
    let owner = index.route(uri);
    if (owner === undefined) {
      await Promise.all([listResources(), listTemplates()]);
      owner = index.route(uri);
    }
    if (owner === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no server of this session lists resource ${JSON.stringify(uri)} or a template matching it`,
      );
    return owner;
  }

  server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
    pageResult(await pager.page('resources', request.params?.cursor, listResources), 'resources'),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request) =>
    pageResult(
      await pager.page('resourceTemplates', request.params?.cursor, listTemplates),
      'resourceTemplates',
    ),
  );
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const owner = await resourceOwner(request.params.uri);
    return forwarder.relay(owner, { method: 'resources/read', params: request.params }, extra);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const owner = await resourceOwner(request.params.uri);
    const attachment = context.attachment();
    if (!attachment) throw new McpError(ErrorCode.InvalidRequest, 'not initialized');
    try {
      await attachment.subscribe(owner, request.params.uri);
    } catch (err) {
      throw asMcpError(err);
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const owner = index.route(request.params.uri);
    const attachment = context.attachment();
    if (owner !== undefined && attachment) {
      try {
        await attachment.unsubscribe(owner, request.params.uri);
      } catch (err) {
        throw asMcpError(err);
      }
    }
    return {};
  });

  return { index, listTemplates };
}
