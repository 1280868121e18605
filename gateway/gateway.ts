/**
 * The gateway: one MCP server per agent connection, in front of its session's Ready servers
 * (DESIGN §2, §5 "The gateway loses nothing").
 *
 * Guarantees:
 * - tools and prompts: the Ready servers' (filtered) ones, named `server__tool` (tool-names.ts:
 *   injective, one name routes to one tool); everything else about them unchanged. Calls and
 *   gets are forwarded raw: arguments, `_meta`, results (structured content, resource links,
 *   `_meta`, unknown fields) pass untouched; a server's protocol error reaches the agent as it
 *   was sent.
 * - resources: lists and template lists merged over the servers that declare `resources`
 *   (every server page followed), URIs never rewritten; reads and subscriptions routed by the
 *   resource index (resource-index.ts); updates reach the subscribing agents only.
 * - completion/complete for `ref/prompt` (visible prompt name) and `ref/resource` (template).
 * - logging/setLevel goes to every server of the session that declares logging; their
 *   messages come back with `logger` naming the server (agent.ts).
 * - progress: the agent's token is honoured; the server's progress comes back to this agent
 *   only, never after the call ended or was cancelled. Cancellation reaches the server.
 * - sampling / elicitation / roots: a server's request reaches this agent when it belongs to
 *   it: its call is the only agent's call in flight on that connection, or it names a task
 *   this agent created; never across workspaces (the pool's routing, pool/agent-routing.ts).
 * - paging: merged lists are paged to the agent with opaque cursors (paging.ts).
 * - A server that is not Ready: a tool call answers `isError` with the `why` message and its
 *   fix; any other request routed to it fails with that message; never a hang.
 * - list_changed for tools, prompts and resources goes out once per settled burst of
 *   reconciles (and servers' own resources/list_changed at most twice a second).
 * - tasks: a task-augmented tool call goes to its server; tasks/get, result, cancel and list and
 *   task status notifications concern only the tasks this agent created (task-table.ts).
 * - Params a request's method cannot take are answered -32602 in one line naming the field
 *   (checked-server.ts), never the SDK's -32603 with a dump of the validator's issues.
 * - `--meta-tools` adds mcpctl_find_tools / mcpctl_call_tool; `only` lists just those two.
 * - Gated servers are put to the user through elicitation (approval-prompt.ts); servers waiting
 *   for an OAuth login are offered through URL-mode elicitation (login-prompt.ts).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type JSONRPCRequest,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  AgentAttachments,
  SessionCaller,
  SessionRequestOptions,
} from '../controller/agent-attachments.js';
import type { McpMessage } from '../pool/types.js';
import { GatewayAgent } from './agent.js';
import { CheckedServer } from './checked-server.js';
import { promptApprovals } from './approval-prompt.js';
import { promptLogins, type StartLogin } from './login-prompt.js';
import { CALL_TOOL, FIND_TOOLS, META_TOOLS, findTools } from './meta-tools.js';
import { Pager } from './paging.js';
import { ResourceIndex, byPrecedence } from './resource-index.js';
import { RouteTable, type Route } from './routes.js';
import { TaskTable } from './task-table.js';
import type { ServerTools, SessionPort } from './session-port.js';

export type MetaToolsMode = 'off' | 'add' | 'only';

export interface GatewayServerOptions {
  readonly name?: string;
  readonly version: string;
  /** Where the gateway reports its own problems (never the agent's channel). */
  readonly log: (message: string) => void;
  /** For logs: which agent connection this is. */
  readonly label?: string;
  /** Joined into the gateway's `initialize` result. */
  readonly instructions?: string;
  /** How long the first listing waits for the session to settle (default 0). */
  readonly firstListWaitMs?: number;
  /** How long a question to the agent (approval, a server's elicitation) stays open. */
  readonly elicitTimeoutMs?: number;
  readonly metaTools?: MetaToolsMode;
  /** Items per page of a merged list (default 1000). */
  readonly pageSize?: number;
  /** Starts an OAuth login; given, servers waiting for one are offered in-band (login-prompt.ts). */
  readonly login?: StartLogin;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** What a forwarded call needs of the request it serves (the SDK's extra, or fast-calls.ts). */
export type CallContext = Pick<Extra, 'signal' | 'sendNotification' | '_meta'>;

const DEFAULT_ELICIT_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_PAGE_SIZE = 1000;
/** Servers' own list_changed, passed on at most this often. */
const MIN_NOTIFY_INTERVAL_MS = 500;
/** A server that keeps sending cursors is cut off here (like the pool's listing). */
const MAX_SERVER_PAGES = 1000;

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The gateway as an SDK Server; `attach()` must be called once the transport is connected. */
export interface GatewayServer {
  readonly server: Server;
  /** Serves one tools/call (what the fast path in fast-calls.ts calls). */
  handleToolCall(
    params: Record<string, unknown>,
    context: CallContext,
  ): Promise<Record<string, unknown>>;
  /** Ends the agent's attachments (call after the server closed). */
  detach(): void;
}

export function createGatewayServer(
  port: SessionPort,
  options: GatewayServerOptions,
): GatewayServer {
  // Bad params of any typed request are answered -32602 in one readable line (checked-server.ts).
  const server = new CheckedServer(
    { name: options.name ?? 'mcpctl', version: options.version },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
        // Task-augmented tool calls go to servers that support them (task-table.ts).
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      ...(options.instructions ? { instructions: options.instructions } : {}),
    },
  );
  const log = options.log;
  const metaTools = options.metaTools ?? 'off';
  const toolRoutes = new RouteTable((m) => log(`tool ${m}`));
  const promptRoutes = new RouteTable((m) => log(`prompt ${m}`));
  const resources = new ResourceIndex((uri, kept, dropped) => {
    const message = `servers ${JSON.stringify(kept)} and ${JSON.stringify(dropped)} both list resource ${JSON.stringify(uri)}; ${JSON.stringify(kept)} serves it (higher precedence)`;
    log(message);
    port.warn(dropped, 'DuplicateResource', message);
  });
  const pager = new Pager(options.pageSize ?? DEFAULT_PAGE_SIZE);
  const tasks = new TaskTable();
  const elicitTimeoutMs = options.elicitTimeoutMs ?? DEFAULT_ELICIT_TIMEOUT_MS;
  const agent = new GatewayAgent(server, {
    label: options.label ?? 'agent',
    requestTimeoutMs: elicitTimeoutMs,
    minIntervalMs: MIN_NOTIFY_INTERVAL_MS,
    ownsTask: (server, taskId) => tasks.owner(taskId) === server,
    log,
  });
  // This agent as the maker of a request: one object for all its requests (the pool counts
  // agents by identity; the session adds its workspace). Notifications come through the
  // attachments, never through a caller.
  const caller: SessionCaller = {
    label: agent.label,
    canAnswer: (m) => agent.canAnswer(m),
    request: (m, o) => agent.request(m, o),
  };
  let attachments: AgentAttachments | undefined;
  let firstList: Promise<void> | undefined;

  async function listing(): Promise<ServerTools[]> {
    // A failed wait only costs the wait: the listing itself says what is wrong.
    firstList ??= port.settled(options.firstListWaitMs ?? 0).catch(() => undefined);
    await firstList;
    return port.list();
  }

  async function refresh(): Promise<{ tools: Tool[]; prompts: Prompt[] }> {
    const servers = await listing();
    const toolNames = toolRoutes.replace(
      servers.map((e) => ({ server: e.server, names: e.tools.map((t) => t.name) })),
    );
    const promptNames = promptRoutes.replace(
      servers.map((e) => ({ server: e.server, names: e.prompts.map((p) => p.name) })),
    );
    const tools: Tool[] = [];
    const prompts: Prompt[] = [];
    servers.forEach((entry, i) => {
      entry.tools.forEach((tool, j) => {
        const name = toolNames[i][j];
        if (name !== undefined) tools.push({ ...tool, name });
      });
      entry.prompts.forEach((prompt, j) => {
        const name = promptNames[i][j];
        if (name !== undefined) prompts.push({ ...prompt, name });
      });
    });
    return { tools, prompts };
  }

  /** A visible name's route, listing again once when the name is not (yet) known. */
  async function routeOf(table: RouteTable, name: string): Promise<Route | undefined> {
    const route = table.get(name);
    if (route) return route;
    await refresh();
    return table.get(name);
  }

  /** Every page of one server's list (`key` names the items in the result). */
  async function allPages<T>(server: string, method: string, key: string): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let n = 0; n < MAX_SERVER_PAGES; n += 1) {
      const result = await port.request(
        server,
        { method, ...(cursor === undefined ? {} : { params: { cursor } }) },
        { caller },
      );
      const items = result[key];
      if (Array.isArray(items)) out.push(...(items as T[]));
      const next = result.nextCursor;
      if (typeof next !== 'string' || next === '' || seen.has(next)) return out;
      seen.add(next);
      cursor = next;
    }
    return out;
  }

  /** The servers that declare resources, highest precedence first. */
  async function resourceServers(): Promise<ServerTools[]> {
    return (await listing()).filter((s) => s.capabilities?.resources).sort(byPrecedence);
  }

  async function listResources(): Promise<Resource[]> {
    const servers = await resourceServers();
    const lists = await Promise.all(
      servers.map((s) =>
        allPages<Resource>(s.server, 'resources/list', 'resources').catch((err: unknown) => {
          log(`resources/list of ${s.server} failed: ${messageOf(err)}`);
          return [] as Resource[];
        }),
      ),
    );
    const kept = resources.replaceListed(
      servers.map((s, i) => ({ server: s.server, uris: lists[i].map((r) => r.uri) })),
    );
    return lists.flatMap((list, i) => list.filter((_, j) => kept[i][j]));
  }

  async function listTemplates(): Promise<ResourceTemplate[]> {
    const servers = await resourceServers();
    const lists = await Promise.all(
      servers.map((s) =>
        allPages<ResourceTemplate>(s.server, 'resources/templates/list', 'resourceTemplates').catch(
          (err: unknown) => {
            log(`resources/templates/list of ${s.server} failed: ${messageOf(err)}`);
            return [] as ResourceTemplate[];
          },
        ),
      ),
    );
    resources.replaceTemplates(
      servers.map((s, i) => ({ server: s.server, templates: lists[i].map((t) => t.uriTemplate) })),
    );
    // One template listed by two servers is offered once: the higher-precedence server's.
    const seen = new Set<string>();
    return lists.flat().filter((t) => !seen.has(t.uriTemplate) && seen.add(t.uriTemplate));
  }

  /** The server serving `uri`; lists again once when the index does not know it. */
  async function resourceOwner(uri: string): Promise<string> {
    let owner = resources.route(uri);
    if (owner === undefined) {
      await Promise.all([listResources(), listTemplates()]);
      owner = resources.route(uri);
    }
    if (owner === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no server of this session lists resource ${JSON.stringify(uri)} or a template matching it`,
      );
    return owner;
  }

  /** A server's URIs seen in a tool result (resource links, embedded resources). */
  function learnLinks(server: string, result: Record<string, unknown>): void {
    const content = result.content;
    if (!Array.isArray(content)) return;
    for (const item of content as unknown[]) {
      if (typeof item !== 'object' || item === null) continue;
      const block = item as { type?: unknown; uri?: unknown; resource?: { uri?: unknown } };
      if (block.type === 'resource_link' && typeof block.uri === 'string')
        resources.learn(block.uri, server);
      else if (block.type === 'resource' && typeof block.resource?.uri === 'string')
        resources.learn(block.resource.uri, server);
    }
  }

  /** Forwards a request to `server` for this agent, with its progress and cancellation. */
  async function forward(
    server: string,
    message: McpMessage,
    extra: CallContext,
  ): Promise<Record<string, unknown>> {
    const meta = message.params?._meta as { progressToken?: unknown } | undefined;
    const token = meta?.progressToken;
    const options: SessionRequestOptions = {
      signal: extra.signal,
      caller,
      ...(typeof token === 'string' || typeof token === 'number'
        ? {
            onprogress: (progress) => {
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { ...progress, progressToken: token },
                })
                .catch((err: unknown) => log(`could not send progress: ${messageOf(err)}`));
            },
          }
        : {}),
    };
    return port.request(server, message, options);
  }

  /** A failure of a request other than a tool call: the server's own error, else ours. */
  function asMcpError(err: unknown): Error {
    if (err instanceof McpError) return relayed(err);
    return new McpError(ErrorCode.InternalError, messageOf(err));
  }

  async function callTool(
    visible: string,
    params: Record<string, unknown>,
    extra: CallContext,
  ): Promise<Record<string, unknown>> {
    const route = await routeOf(toolRoutes, visible);
    if (!route) {
      const former = toolRoutes.formerServer(visible);
      if (former === undefined)
        return errorResult(`no tool named ${visible}; list the tools again`);
      const why = await port.why(former);
      return errorResult(`${why.message}: ${why.action}`);
    }
    try {
      const result = await forward(
        route.server,
        { method: 'tools/call', params: { ...params, name: route.name } },
        extra,
      );
      learnLinks(route.server, result);
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

  async function callMetaTool(
    name: string,
    args: Record<string, unknown>,
    extra: CallContext,
  ): Promise<Record<string, unknown>> {
    if (name === FIND_TOOLS) {
      const { tools } = await refresh();
      const found = tools.map((t) => ({
        name: t.name,
        server: toolRoutes.get(t.name)?.server ?? '',
        ...(t.description === undefined ? {} : { description: t.description }),
        inputSchema: t.inputSchema,
      }));
      const query = typeof args.query === 'string' ? args.query : undefined;
      return findTools(found, await port.unavailable(), query);
    }
    const target = args.name;
    if (typeof target !== 'string' || target === '')
      return errorResult(`${CALL_TOOL} needs "name": a tool name from ${FIND_TOOLS}`);
    if (target === FIND_TOOLS || target === CALL_TOOL)
      return callMetaTool(target, asObject(args.arguments), extra);
    const inner = args.arguments;
    return callTool(
      target,
      {
        name: target,
        ...(inner === undefined ? {} : { arguments: inner }),
        ...(extra._meta ? { _meta: extra._meta } : {}),
      },
      extra,
    );
  }

  // tools/call is served raw (the fallback handler): the SDK's typed handler would validate
  // and rebuild the result, and the agent must get the server's result as it was sent.
  /** One tools/call, by the SDK's handler or the fast path (fast-calls.ts). */
  async function handleToolCall(
    params: Record<string, unknown>,
    extra: CallContext,
  ): Promise<Record<string, unknown>> {
    const name = params.name;
    if (typeof name !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name (a string)');
    if (metaTools !== 'off' && (name === FIND_TOOLS || name === CALL_TOOL))
      return callMetaTool(name, asObject(params.arguments), extra);
    return callTool(name, params, extra);
  }

  /** tasks/get, tasks/result, tasks/cancel: only for a task this agent created. */
  async function forwardTask(request: JSONRPCRequest, extra: Extra) {
    const params = asObject(request.params);
    const owner = tasks.owner(params.taskId);
    if (owner === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no task ${JSON.stringify(params.taskId)} of this agent`,
      );
    try {
      return await forward(owner, { method: request.method, params }, extra);
    } catch (err) {
      throw asMcpError(err);
    }
  }

  /** tasks/list: this agent's tasks on every server that lists tasks, paged like the others. */
  async function listTasks(): Promise<Record<string, unknown>[]> {
    const servers = (await listing()).filter((s) => s.capabilities?.tasks?.list);
    const lists = await Promise.all(
      servers.map((s) =>
        allPages<Record<string, unknown>>(s.server, 'tasks/list', 'tasks').catch((err: unknown) => {
          log(`tasks/list of ${s.server} failed: ${messageOf(err)}`);
          return [] as Record<string, unknown>[];
        }),
      ),
    );
    // A shared server lists every agent's tasks; this agent sees its own only.
    return lists.flatMap((list, i) =>
      list.filter((t) => tasks.owner(t.taskId) === servers[i].server),
    );
  }

  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra: Extra) => {
    switch (request.method) {
      case 'tools/call':
        break;
      case 'tasks/get':
      case 'tasks/result':
      case 'tasks/cancel':
        return forwardTask(request, extra);
      case 'tasks/list': {
        const cursor = asObject(request.params).cursor;
        return pageResult(
          await pager.page('tasks', typeof cursor === 'string' ? cursor : undefined, listTasks),
          'tasks',
        );
      }
      default:
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    }
    return handleToolCall(asObject(request.params), extra);
  };

  server.setRequestHandler(ListToolsRequestSchema, async (request) =>
    pageResult(
      await pager.page('tools', request.params?.cursor, async () => {
        if (metaTools === 'only') return META_TOOLS;
        const { tools } = await refresh();
        return metaTools === 'add' ? [...META_TOOLS, ...tools] : tools;
      }),
      'tools',
    ),
  );
  server.setRequestHandler(ListPromptsRequestSchema, async (request) =>
    pageResult(
      await pager.page('prompts', request.params?.cursor, async () => (await refresh()).prompts),
      'prompts',
    ),
  );
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const route = await routeOf(promptRoutes, request.params.name);
    if (!route) {
      const former = promptRoutes.formerServer(request.params.name);
      const why = former === undefined ? undefined : await port.why(former);
      throw new McpError(
        ErrorCode.InvalidParams,
        why
          ? `${why.message}: ${why.action}`
          : `no prompt named ${request.params.name}; list the prompts again`,
      );
    }
    try {
      return await forward(
        route.server,
        { method: 'prompts/get', params: { ...request.params, name: route.name } },
        extra,
      );
    } catch (err) {
      throw asMcpError(err);
    }
  });

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
    try {
      return await forward(owner, { method: 'resources/read', params: request.params }, extra);
    } catch (err) {
      throw asMcpError(err);
    }
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const owner = await resourceOwner(request.params.uri);
    if (!attachments) throw new McpError(ErrorCode.InvalidRequest, 'not initialized');
    try {
      await attachments.subscribe(owner, request.params.uri);
    } catch (err) {
      throw asMcpError(err);
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const owner = resources.route(request.params.uri);
    if (owner !== undefined && attachments) {
      try {
        await attachments.unsubscribe(owner, request.params.uri);
      } catch (err) {
        throw asMcpError(err);
      }
    }
    return {};
  });

  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const ref = request.params.ref;
    let target: string;
    let params: Record<string, unknown> = request.params;
    if (ref.type === 'ref/prompt') {
      const route = await routeOf(promptRoutes, ref.name);
      if (!route)
        throw new McpError(
          ErrorCode.InvalidParams,
          `no prompt named ${ref.name}; list the prompts again`,
        );
      target = route.server;
      params = { ...request.params, ref: { ...ref, name: route.name } };
    } else {
      let owner = resources.templateOwner(ref.uri);
      if (owner === undefined) {
        await listTemplates();
        owner = resources.templateOwner(ref.uri) ?? resources.route(ref.uri);
      }
      if (owner === undefined)
        throw new McpError(
          ErrorCode.InvalidParams,
          `no server of this session lists resource template ${JSON.stringify(ref.uri)}`,
        );
      target = owner;
    }
    const servers = await listing();
    if (!servers.find((s) => s.server === target)?.capabilities?.completions)
      return { completion: { values: [], hasMore: false } };
    try {
      return await forward(target, { method: 'completion/complete', params }, extra);
    } catch (err) {
      throw asMcpError(err);
    }
  });

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    agent.setLevel(request.params.level);
    try {
      await attachments?.setLogLevel(request.params.level);
    } catch (err) {
      log(`logging/setLevel: ${messageOf(err)}`);
    }
    return {};
  });

  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    void agent.refreshRoots().then(
      (changed) => {
        if (changed) attachments?.rootsChanged();
      },
      (err: unknown) => log(`could not list the agent's roots: ${messageOf(err)}`),
    );
  });

  port.onListChanged(() => {
    const sends: Promise<void>[] = [
      server.sendPromptListChanged(),
      server.sendResourceListChanged(),
    ];
    if (metaTools !== 'only') sends.push(server.sendToolListChanged());
    void Promise.all(sends).catch((err: unknown) =>
      log(`could not send list_changed: ${messageOf(err)}`),
    );
  });

  const askPending = promptApprovals(server, port, { timeoutMs: elicitTimeoutMs, log });
  const logins = options.login
    ? promptLogins(server, port, { login: options.login, timeoutMs: elicitTimeoutMs, log })
    : undefined;
  server.oninitialized = () => {
    attachments = port.attach(agent);
    void agent.refreshRoots().then(
      (changed) => {
        if (changed) attachments?.rootsChanged();
      },
      (err: unknown) => log(`could not list the agent's roots: ${messageOf(err)}`),
    );
    askPending();
    logins?.initialized();
  };

  return {
    server,
    handleToolCall,
    detach() {
      attachments?.detach();
      attachments = undefined;
      logins?.close();
      agent.close();
    },
  };
}

/**
 * A server's error as the agent would have had it straight from the server: same code, message
 * and data. (An McpError's message carries an "MCP error N:" prefix the agent's SDK adds again.)
 */
class RelayedError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

function relayed(err: McpError): RelayedError {
  return new RelayedError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function pageResult<T, K extends string>(
  page: { items: T[]; nextCursor?: string },
  key: K,
): Record<K, T[]> & { nextCursor?: string } {
  return {
    [key]: page.items,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  } as Record<K, T[]> & { nextCursor?: string };
}

/** The servers' instructions, each under its server's name, after a line about mcpctl. */
export function joinInstructions(servers: readonly ServerTools[]): string {
  const parts = [
    'mcpctl serves the MCP servers configured for this workspace. Tools and prompts are named server__tool (a name that cannot be written so gets a short hash instead); the set changes live as config files change.',
  ];
  for (const s of servers)
    // Verbatim: a server's instructions are its own words.
    if (s.instructions?.trim()) parts.push(`## ${s.server}\n\n${s.instructions}`);
  return parts.join('\n\n');
}
