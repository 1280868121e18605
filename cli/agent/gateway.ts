/**
 * Opening an agent's gateway, written once for the daemon's three doors: the socket's
 * `gateway.open` (cli/methods/gateway.ts), the Streamable HTTP endpoint
 * (cli/http/agent-session.ts) and serve with the gateway in its own process
 * (cli/serve/in-process.ts). Each door opens or joins the session and carries the agent's
 * messages its own way; what the gateway itself is given is decided here.
 *
 * Guarantees:
 * - A session's gateway waits at most FIRST_LIST_WAIT_MS for servers still connecting (once,
 *   for the agent's connect and first listing together), and offers the in-band OAuth login
 *   of servers waiting for one (inband-login.ts: the daemon's, or the in-process core's,
 *   loginStart/loginFinish), with the meta tools the agent asked for.
 * - An inert gateway (inert-port.ts: mcpctl started by mcpctl itself) serves nothing at all,
 *   not even the meta tools, and holds no session.
 * - Nothing here holds anything: a gateway that fails to open leaves the session as it was,
 *   to the door that holds it.
 */
import {
  openGateway,
  openInertGateway,
  type AgentClientInfo,
  type Gateway,
  type MetaToolsMode,
} from '../../gateway/index.js';
import type { Daemon } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import { inbandLogin } from './inband-login.js';
import { InertSessionPort } from './inert-port.js';

/**
 * How long an agent waits for servers that are still connecting, at most once for its connect
 * and first listing together (and not again while the session has not settled since).
 */
export const FIRST_LIST_WAIT_MS = 5000;

export interface AgentGatewayOptions {
  readonly version: string;
  /** The gateway's own problems (never the agent's channel), each line as it is to read. */
  readonly log: (message: string) => void;
  /** For logs: which agent connection this is (e.g. `agent (serve pid 4242) of session …`). */
  readonly label?: string;
}

/** A real session's gateway: the door's hold on the session hears which agent it serves. */
export interface SessionGatewayOptions extends AgentGatewayOptions {
  readonly metaTools: MetaToolsMode;
  /** The agent's initialize said its clientInfo (`get sessions` shows it: SessionHandle.identify). */
  readonly onInitialized?: (clientInfo: AgentClientInfo | undefined) => void;
}

/** The door's log with every line of the gateway of `label` saying whose it is. */
export function gatewayLog(label: string, log: (message: string) => void) {
  return (message: string): void => log(`gateway of ${label}: ${message}`);
}

/**
 * The gateway of `session` for one agent; `core` is the controller holding the session (the
 * daemon, or serve's own with `--no-daemon`), whose OAuth logins the agent is offered.
 */
export function openAgentGateway(
  core: Daemon,
  session: Session,
  options: SessionGatewayOptions,
): Promise<Gateway> {
  return openGateway(session, {
    version: options.version,
    log: options.log,
    firstListWaitMs: FIRST_LIST_WAIT_MS,
    metaTools: options.metaTools,
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.onInitialized === undefined ? {} : { onInitialized: options.onInitialized }),
    // Servers waiting for an OAuth login are offered to an agent that can open a URL.
    login: inbandLogin(core, session),
  });
}

/** A gateway that serves no tools: every request is answered with `reason`. */
export function openInertAgentGateway(reason: string, options: AgentGatewayOptions): Gateway {
  return openInertGateway(new InertSessionPort(reason), {
    version: options.version,
    log: options.log,
    // Nothing at all: its own meta tools would reach the agent as `mcpctl__mcpctl_find_tools`,
    // beside the real pair, and find no tools there.
    metaTools: 'off',
    ...(options.label === undefined ? {} : { label: options.label }),
  });
}
