/**
 * The gateway: the MCP face of a session, one per agent connection (DESIGN §2, §3).
 *
 * `openGateway` is what `cli/` calls for every agent that connects (a `mcpctl serve` pipe on
 * the daemon socket, or stdio with `--no-daemon`); `openInertGateway` is the empty face of a
 * serve that mcpctl started itself (see cli/serve/inert-port.ts).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Session } from '../controller/session.js';
import { createBridge } from './gateway.js';
import { LocalSessionPort } from './local-port.js';
import type { SessionPort } from './session-port.js';

/** `mcpctl serve --meta-tools[=only]`: two stable tools for agents that never re-list. */
export type MetaToolsMode = 'off' | 'add' | 'only';

export interface GatewayOptions {
  readonly version: string;
  /** Where the gateway reports its own problems (never the agent's channel). */
  readonly log: (message: string) => void;
  /** How long opening waits for the session to settle, so the first listing is complete. */
  readonly firstListWaitMs?: number;
  /** How long an approval question stays open (default 15 minutes). */
  readonly elicitTimeoutMs?: number;
  readonly metaTools?: MetaToolsMode;
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
  return Promise.resolve(fromPort(new LocalSessionPort(session), options));
}

export function openInertGateway(port: SessionPort, options: GatewayOptions): Gateway {
  return fromPort(port, options);
}

function fromPort(port: SessionPort, options: GatewayOptions): Gateway {
  const server = createBridge(port, {
    version: options.version,
    log: options.log,
    ...(options.firstListWaitMs === undefined ? {} : { firstListWaitMs: options.firstListWaitMs }),
    ...(options.elicitTimeoutMs === undefined ? {} : { elicitTimeoutMs: options.elicitTimeoutMs }),
  });
  const gateway: Gateway = {
    onclose: undefined,
    connect: (transport) => server.connect(transport),
    async close() {
      server.onclose = undefined;
      await server.close();
      await port.close();
    },
  };
  server.onclose = () => gateway.onclose?.();
  return gateway;
}
