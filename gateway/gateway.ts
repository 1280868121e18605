/**
 * The serve bridge: one MCP server (stdio, SDK classes) in front of a session's servers.
 *
 * Guarantees:
 * - tools/list and prompts/list show the Ready servers' (filtered) tools and prompts, named
 *   `server__tool` (or, where that could be ambiguous or invalid, a stable hashed name: see
 *   tool-names.ts), with their descriptions and input schemas; one name routes to one tool.
 * - tools/call goes to the lease serving the tool now, with the client's cancellation; a tool
 *   whose server is unavailable answers `isError` with the `why` message and its fix — never a
 *   protocol error, never a crash.
 * - list_changed notifications go out once per settled burst of reconciles that changed tools.
 * - A promptable gated server is put to the user through elicitation when the client declared
 *   it; approve / approve for this session / reject act, cancel decides nothing. Servers that
 *   were already pending when the client connected are asked about once it has initialized
 *   (the session announces a config only once); one server is never asked twice at once.
 * - The question carries the approval hash of the config it shows, and the answer decides
 *   about that config only: when the config changed while the dialog was open, the answer
 *   decides nothing and the user is asked about the new config.
 * - The first listing waits (at most `firstListWaitMs`) for the session to settle, so an agent
 *   that lists tools once at start-up sees the servers that were still connecting.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Prompt,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { RouteTable } from './routes.js';
import type { ApprovalRequest, DecideOutcome, Decision, SessionPort } from './session-port.js';

export interface BridgeOptions {
  readonly name?: string;
  readonly version: string;
  /** Where the bridge reports its own problems (never stdout: that is the MCP channel). */
  readonly log: (message: string) => void;
  /** How long the first tools/prompts listing waits for the session to settle (default 0). */
  readonly firstListWaitMs?: number;
  /** How long an approval question stays open before it is withdrawn (default 15 minutes). */
  readonly elicitTimeoutMs?: number;
}

const DECISIONS: readonly Decision[] = ['approve', 'approve-session', 'reject'];
/** A person answers this; the SDK's 60 s request default would withdraw it too soon. */
const DEFAULT_ELICIT_TIMEOUT_MS = 15 * 60_000;

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function createBridge(port: SessionPort, options: BridgeOptions): Server {
  const server = new Server(
    { name: options.name ?? 'mcpctl', version: options.version },
    {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
      instructions:
        'mcpctl serves the MCP servers configured for this workspace. Tools are named server__tool (a name that cannot be written so gets a short hash suffix instead); the set changes live as config files change.',
    },
  );
  const toolRoutes = new RouteTable((m) => options.log(`tool ${m}`));
  const promptRoutes = new RouteTable((m) => options.log(`prompt ${m}`));
  let firstList: Promise<void> | undefined;

  async function refresh(): Promise<{ tools: Tool[]; prompts: Prompt[] }> {
    // A failed wait only costs the wait: the listing itself says what is wrong.
    firstList ??= port.settled(options.firstListWaitMs ?? 0).catch(() => undefined);
    await firstList;
    const listing = await port.list();
    const toolNames = toolRoutes.replace(
      listing.map((e) => ({ server: e.server, names: e.tools.map((t) => t.name) })),
    );
    const promptNames = promptRoutes.replace(
      listing.map((e) => ({ server: e.server, names: e.prompts.map((p) => p.name) })),
    );
    const tools: Tool[] = [];
    const prompts: Prompt[] = [];
    listing.forEach((entry, i) => {
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

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await refresh()).tools,
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: (await refresh()).prompts,
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    let route = toolRoutes.get(name);
    if (!route) {
      await refresh();
      route = toolRoutes.get(name);
    }
    if (!route) {
      const server = toolRoutes.formerServer(name);
      if (server === undefined) return errorResult(`no tool named ${name}; list the tools again`);
      const why = await port.why(server);
      return errorResult(`${why.message}: ${why.action}`);
    }
    try {
      return await port.callTool(route.server, route.name, request.params.arguments, {
        signal: extra.signal,
      });
    } catch (err) {
      return errorResult(messageOf(err));
    }
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    let route = promptRoutes.get(request.params.name);
    if (!route) {
      await refresh();
      route = promptRoutes.get(request.params.name);
    }
    if (!route) throw new Error(`no prompt named ${request.params.name}; list the prompts again`);
    return port.getPrompt(route.server, route.name, request.params.arguments, {
      signal: extra.signal,
    });
  });

  port.onListChanged(() => {
    void Promise.all([server.sendToolListChanged(), server.sendPromptListChanged()]).catch(
      (err: unknown) => options.log(`could not send list_changed: ${messageOf(err)}`),
    );
  });

  /** Servers being asked about now: a repeated announcement must not stack a second dialog. */
  const asking = new Set<string>();
  const ask = (request: ApprovalRequest) => {
    // Before `initialized` the capabilities are unknown; the replay below covers that window.
    if (!server.getClientCapabilities()?.elicitation || asking.has(request.name)) return;
    asking.add(request.name);
    const timeout = options.elicitTimeoutMs ?? DEFAULT_ELICIT_TIMEOUT_MS;
    void askForApproval(server, port, request, timeout)
      .then((outcome) => {
        if (outcome && !outcome.decided)
          options.log(`approval of ${request.name} not recorded: ${outcome.reason}`);
      })
      .catch((err: unknown) =>
        options.log(`approval prompt for ${request.name} failed: ${messageOf(err)}`),
      )
      .finally(() => {
        asking.delete(request.name);
        askAgainIfChanged(request);
      });
  };
  /**
   * The config may have changed while the dialog was open: its announcement was dropped then
   * (one dialog per server), and an answer about the old config decided nothing. Ask about
   * the new config if it is still promptable.
   */
  const askAgainIfChanged = (asked: ApprovalRequest) => {
    void port.pendingApprovals().then(
      (requests) => {
        const now = requests.find((r) => r.name === asked.name);
        if (now && now.hash !== asked.hash) ask(now);
      },
      (err: unknown) => options.log(`could not list pending approvals: ${messageOf(err)}`),
    );
  };
  port.onPendingApproval(ask);
  server.oninitialized = () => {
    if (!server.getClientCapabilities()?.elicitation) return;
    void port.pendingApprovals().then(
      (requests) => requests.forEach(ask),
      (err: unknown) => options.log(`could not list pending approvals: ${messageOf(err)}`),
    );
  };

  return server;
}

/**
 * Asks about one config; the answer decides about that config (its hash) only. No decision
 * (cancelled, or an answer that is none of the choices) → undefined.
 */
async function askForApproval(
  server: Server,
  port: SessionPort,
  request: ApprovalRequest,
  timeout: number,
): Promise<DecideOutcome | undefined> {
  const env = request.envKeys.length
    ? `\nenv/headers: ${request.envKeys.join(', ')} (values hidden)`
    : '';
  const result = await server.elicitInput(
    {
      message:
        `The ${request.scope} config ${request.source} asks to start the MCP server "${request.name}":\n` +
        `${request.target}${env}\nconfig hash: ${request.hash.slice(0, 12)}\nAllow it to run?`,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            oneOf: [
              { const: 'approve', title: 'Approve (remembered for this exact config)' },
              { const: 'approve-session', title: 'Approve for this session only' },
              { const: 'reject', title: 'Reject' },
            ],
          },
        },
        required: ['decision'],
      },
    },
    { timeout },
  );
  if (result.action === 'cancel') return undefined;
  if (result.action === 'decline') return port.decide(request.name, 'reject', request.hash);
  const decision = result.content?.decision;
  if (typeof decision === 'string' && (DECISIONS as readonly string[]).includes(decision)) {
    return port.decide(request.name, decision as Decision, request.hash);
  }
  return undefined;
}
