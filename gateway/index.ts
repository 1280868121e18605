/**
 * The gateway: the MCP face of a session, one per agent connection (DESIGN §2, §3).
 *
 * `openGateway` is what `cli/` calls for every agent that connects (a `mcpctl serve` pipe on
 * the daemon socket, or stdio with `--no-daemon`); `openInertGateway` is the empty face of a
 * serve that mcpctl started itself (see cli/agent/inert-port.ts).
 *
 * Guarantees: opening waits (at most `firstListWaitMs`) for the session to settle, so the
 * agent's `initialize` carries the instructions of the servers that were still connecting and
 * its first listing sees them (the instructions also name the config files that do not parse
 * or validate: servers may be missing). That is one wait per busy spell of the session, shared with the
 * first listing and with every other agent (SessionPort.settled): a server stuck connecting
 * delays an agent once, not at connect and again at its first tools/list, nor every agent that
 * connects while it stays stuck. `close()` ends the agent connection and everything it held in
 * the session (attachments, subscriptions), never the session itself.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Session } from '../controller/session.js';
import {
  createGatewayServer,
  joinInstructions,
  type AgentClientInfo,
  type MetaToolsMode,
} from './gateway.js';
import type { StartLogin } from './login-prompt.js';
import { serveToolCallsFast } from './fast-calls.js';
import { LocalSessionPort } from './local-port.js';
import type { SessionPort } from './session-port.js';

export type { AgentClientInfo, MetaToolsMode } from './gateway.js';
export type { LoginAttempt, StartLogin } from './login-prompt.js';

export interface GatewayOptions {
  readonly version: string;
  /** Where the gateway reports its own problems (never the agent's channel). */
  readonly log: (message: string) => void;
  /** How long opening waits for the session to settle, so the first listing is complete. */
  readonly firstListWaitMs?: number;
  /** How long an approval question stays open (default 15 minutes). */
  readonly elicitTimeoutMs?: number;
  readonly metaTools?: MetaToolsMode;
  /** For logs: which agent connection this is (e.g. `serve pid 4242`). */
  readonly label?: string;
  /** Items per page of a merged list (default 1000). */
  readonly pageSize?: number;
  /**
   * Starts an OAuth login for a server of the session (cli/ implements it: loopback listener +
   * the daemon's loginStart/loginFinish). Given, an agent that declared URL-mode elicitation is
   * offered the login of servers waiting for one.
   */
  readonly login?: StartLogin;
  /** Told once the agent said `initialized`: its initialize's clientInfo (name, version). */
  readonly onInitialized?: (clientInfo: AgentClientInfo | undefined) => void;
}

/** One agent connection's MCP server. */
export interface Gateway {
  /** Serves the agent over `transport` (initialize and everything after). */
  connect(transport: Transport): Promise<void>;
  /** Set by the caller: the agent's connection ended. */
  onclose: (() => void) | undefined;
  /** Ends the agent connection and lets go of everything it held in the session. */
  close(): Promise<void>;
}

export async function openGateway(session: Session, options: GatewayOptions): Promise<Gateway> {
  const port = new LocalSessionPort(session);
  await port.settled(options.firstListWaitMs ?? 0).catch(() => undefined);
  const instructions = joinInstructions(await port.list(), session.configWarnings());
  return fromPort(port, instructions, options);
}

export function openInertGateway(port: SessionPort, options: GatewayOptions): Gateway {
  return fromPort(port, undefined, options);
}

function fromPort(
  port: SessionPort,
  instructions: string | undefined,
  options: GatewayOptions,
): Gateway {
  const face = createGatewayServer(port, {
    ...options,
    ...(instructions === undefined ? {} : { instructions }),
  });
  const server = face.server;
  const detach = () => face.detach();
  let closed = false;
  const gateway: Gateway = {
    onclose: undefined,
    async connect(transport) {
      await server.connect(transport);
      serveToolCallsFast(
        transport,
        (params, context) => face.handleToolCall(params, context),
        options.log,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      server.onclose = undefined;
      detach();
      await server.close();
      await port.close();
    },
  };
  server.onclose = () => {
    detach();
    gateway.onclose?.();
  };
  return gateway;
}
