/**
 * The gateway: one MCP server per agent connection, in front of its session's Ready servers
 * (DESIGN §2, §5 "The gateway loses nothing").
 *
 * This file is the wiring: it makes the server and the context every capability file is given
 * (context.ts), registers each capability once (tools.ts, prompts.ts, resources.ts,
 * completion.ts, logging.ts, tasks.ts: a new capability is one more file and one more line
 * here), and holds the agent's attachment to the session from `initialized` to `detach`.
 *
 * Guarantees (each kept by the file named):
 * - tools and prompts: the Ready servers' (filtered) ones, named `server__tool` (catalog.ts,
 *   tool-names.ts: injective, one name routes to one tool); everything else about them
 *   unchanged. Calls and gets are forwarded raw: arguments, `_meta`, results (structured
 *   content, resource links, `_meta`, unknown fields) pass untouched; a server's protocol error
 *   reaches the agent as it was sent (tools.ts, prompts.ts, forward.ts).
 * - resources: lists and template lists merged over the servers that declare `resources`
 *   (every server page followed), URIs never rewritten; reads and subscriptions routed by the
 *   resource index; updates reach the subscribing agents only (resources.ts).
 * - completion/complete for `ref/prompt` (visible prompt name) and `ref/resource` (template)
 *   (completion.ts).
 * - logging/setLevel goes to every server of the session that declares logging; their
 *   messages come back with `logger` naming the server (logging.ts, agent.ts).
 * - progress: the agent's token is honoured; the server's progress comes back to this agent
 *   only, never after the call ended or was cancelled. Cancellation reaches the server
 *   (forward.ts).
 * - sampling / elicitation / roots: a server's request reaches this agent when it belongs to
 *   it: its call is the only agent's call in flight on that connection, or it names a task
 *   this agent created; never across workspaces (the pool's routing, pool/agent-routing.ts).
 *   The agent's roots are asked for after `initialized` and on its `roots/list_changed` (here).
 * - paging: merged lists are paged to the agent with opaque cursors (paging.ts).
 * - A server that is not Ready: a tool call answers `isError` with the `why` message and its
 *   fix; any other request routed to it fails with that message; never a hang.
 * - list_changed for tools, prompts and resources goes out once per settled burst of
 *   reconciles (here; and servers' own resources/list_changed at most twice a second).
 * - tasks: a task-augmented tool call goes to its server; tasks/get, result, cancel and list and
 *   task status notifications concern only the tasks this agent created (tasks.ts,
 *   task-table.ts).
 * - Params a request's method cannot take are answered -32602 in one line naming the field
 *   (checked-server.ts), never the SDK's -32603 with a dump of the validator's issues; a method
 *   the gateway does not serve is MethodNotFound.
 * - `--meta-tools` adds mcpctl_find_tools / mcpctl_call_tool; `only` lists just those two
 *   (meta-tools.ts).
 * - While a language server of the session is Ready, the `lsp_*` tools answer code questions
 *   through it (lsp-tools.ts); with `--meta-tools` they are found and called like the rest.
 * - Gated servers are put to the user through elicitation (approval-prompt.ts); servers waiting
 *   for an OAuth login are offered through URL-mode elicitation (login-prompt.ts).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  McpError,
  RootsListChangedNotificationSchema,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { SessionAttachment, SessionCaller } from '../controller/session-attachment.js';
import { GatewayAgent } from './agent.js';
import { promptApprovals } from './approval-prompt.js';
import { Catalog } from './catalog.js';
import { CheckedServer } from './checked-server.js';
import { registerCompletion } from './completion.js';
import type { GatewayContext, RawHandler } from './context.js';
import { Forwarder, messageOf, type CallContext, type Extra } from './forward.js';
import { registerLogging } from './logging.js';
import { promptLogins, type StartLogin } from './login-prompt.js';
import { promptHeldTools } from './pins-prompt.js';
import { ownLspTools } from './lsp-tools.js';
import { ownMetaTools } from './meta-tools.js';
import { Pager } from './paging.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import type { ServerTools, SessionPort } from './session-port.js';
import { TaskTable } from './task-table.js';
import { registerTasks } from './tasks.js';
import { registerTools } from './tools.js';

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
  /** Told once the agent said `initialized`: its initialize's clientInfo (name, version). */
  readonly onInitialized?: (clientInfo: AgentClientInfo | undefined) => void;
}

/** What an agent's initialize says it is (the SDK's `Implementation`: text from outside). */
export interface AgentClientInfo {
  readonly name: string;
  readonly version: string;
}

const DEFAULT_ELICIT_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_PAGE_SIZE = 1000;
/** Servers' own list_changed, passed on at most this often. */
const MIN_NOTIFY_INTERVAL_MS = 500;

/** The gateway as an SDK Server; it attaches the agent to the session on `initialized`. */
export interface GatewayServer {
  readonly server: Server;
  /** Serves one tools/call (what the fast path in fast-calls.ts calls). */
  handleToolCall(
    params: Record<string, unknown>,
    context: CallContext,
  ): Promise<Record<string, unknown>>;
  /** Ends the agent's attachment (call after the server closed). */
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
        // Task-augmented tool calls go to servers that support them (tasks.ts).
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      ...(options.instructions ? { instructions: options.instructions } : {}),
    },
  );
  const log = options.log;
  const metaTools = options.metaTools ?? 'off';
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
  // attachment, never through a caller.
  const caller: SessionCaller = {
    label: agent.label,
    canAnswer: (m) => agent.canAnswer(m),
    request: (m, o) => agent.request(m, o),
  };
  let attachment: SessionAttachment | undefined;
  let firstList: Promise<void> | undefined;
  const raw = new Map<string, RawHandler>();

  const context: GatewayContext = {
    server,
    port,
    forwarder: new Forwarder(port, caller, log),
    pager: new Pager(options.pageSize ?? DEFAULT_PAGE_SIZE),
    log,
    async listing(): Promise<ServerTools[]> {
      // A failed wait only costs the wait: the listing itself says what is wrong.
      firstList ??= port.settled(options.firstListWaitMs ?? 0).catch(() => undefined);
      await firstList;
      return port.list();
    },
    attachment: () => attachment,
    serveRaw(method, handler) {
      raw.set(method, handler);
    },
  };

  // The capabilities. Tools, prompts and completion share the visible names; tools teach the
  // resource index the links and the task table the tasks their results carry.
  const catalog = new Catalog(() => context.listing(), log);
  const resources = registerResources(context);
  const tools = registerTools(context, {
    catalog,
    resourceIndex: resources.index,
    tasks,
    listForwarded: metaTools !== 'only',
  });
  // The language servers' tools: listed while one is Ready, except with `only` (a listing
  // that never changes); found and called through the meta tools either way.
  const lspTools = ownLspTools(port, { listed: metaTools !== 'only', log });
  if (metaTools !== 'off') tools.serveOwn(ownMetaTools(catalog, port, tools, [lspTools]));
  tools.serveOwn(lspTools);
  registerPrompts(context, catalog);
  registerCompletion(context, catalog, resources);
  registerLogging(context, agent);
  registerTasks(context, tasks);

  // The methods served raw (context.ts serveRaw); the SDK answers its typed ones itself.
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra: Extra) => {
    const handler = raw.get(request.method);
    if (handler === undefined)
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    return handler(request, extra);
  };

  /** Asks the agent for its roots; the session's servers hear when they changed. */
  function refreshRoots(): void {
    void agent.refreshRoots().then(
      (changed) => {
        if (changed) attachment?.rootsChanged();
      },
      (err: unknown) => log(`could not list the agent's roots: ${messageOf(err)}`),
    );
  }
  server.setNotificationHandler(RootsListChangedNotificationSchema, refreshRoots);

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
  const askHeld = promptHeldTools(server, port, { timeoutMs: elicitTimeoutMs, log });
  const logins = options.login
    ? promptLogins(server, port, { login: options.login, timeoutMs: elicitTimeoutMs, log })
    : undefined;
  server.oninitialized = () => {
    attachment = port.attach(agent);
    refreshRoots();
    askPending();
    askHeld();
    logins?.initialized();
    options.onInitialized?.(server.getClientVersion());
  };

  return {
    server,
    handleToolCall: tools.handleToolCall,
    detach() {
      attachment?.detach();
      attachment = undefined;
      logins?.close();
      agent.close();
    },
  };
}

/**
 * The servers' instructions, each under its server's name, after a line about mcpctl and,
 * when some config file does not parse or validate, a paragraph saying which (`configErrors`,
 * Session.configWarnings): an agent with fewer tools than expected, or none, learns why.
 */
export function joinInstructions(
  servers: readonly ServerTools[],
  configErrors: readonly string[] = [],
): string {
  const parts = [
    'mcpctl serves the MCP servers configured for this workspace. Tools and prompts are named server__tool (a name that cannot be written so gets a short hash instead); the set changes live as config files change.',
  ];
  if (configErrors.length > 0)
    parts.push(
      `Warning: ${configErrors.length === 1 ? 'a config file of this workspace does' : 'config files of this workspace do'} not parse or validate, so servers may be missing; tell the user. ${configErrors.join(' — ')}`,
    );
  for (const s of servers)
    // Verbatim: a server's instructions are its own words.
    if (s.instructions?.trim()) parts.push(`## ${s.server}\n\n${s.instructions}`);
  return parts.join('\n\n');
}
