/**
 * `gateway.open`: the first line of an agent's connection (what `mcpctl serve` writes). It opens
 * (or joins) a session like `session.open`, opens that session's gateway for this agent, and
 * answers `{ sessionId }`; from then on every line of the connection, both ways, is MCP between
 * the agent and its gateway (cli/gateway-socket.ts).
 *
 * Guarantees:
 * - Params are checked as `session.open`'s (absolute paths, the agent's environment), plus
 *   `metaTools`; a refusal is an error answer, then the connection closes. Nothing is held then.
 * - The session is held by the connection until it closes; closing the connection closes the
 *   gateway (the agent's calls are aborted, its subscriptions dropped), and a gateway that
 *   closes itself closes the connection. A connection that hangs up while the gateway opens
 *   leaves nothing open (an OAuth login offered to the agent included: its listener closes).
 */
import { z } from 'zod';
import { openGateway } from '../../gateway/index.js';
import { GATEWAY_OPEN, GatewaySocketTransport } from '../gateway-socket.js';
import { handover, type HandoverTable } from '../rpc-methods.js';
import { errorText } from '../errors.js';
import { inbandLogin } from '../inband-login.js';
import { openHeld, type MethodContext } from './context.js';
import { openShape, openSpec } from './sessions.js';

/**
 * How long an agent waits for servers that are still connecting, at most once for its connect
 * and first listing together (and not again while the session has not settled since).
 */
export const FIRST_LIST_WAIT_MS = 5000;

export function gatewayHandovers(ctx: MethodContext): HandoverTable {
  return {
    [GATEWAY_OPEN]: handover(
      z.object({ ...openShape, metaTools: z.enum(['off', 'add', 'only']).optional() }),
      "{ sessionId }: opens (or joins) a workspace's session like session.open, then the connection carries MCP to that session's gateway (first line only)",
      async (p, call) => {
        const session = await openHeld(ctx, call.conn, openSpec(p));
        const label = `agent${p.pid ? ` (serve pid ${p.pid})` : ''} of session ${session.id}`;
        const log = (message: string) => ctx.log(`gateway of ${label}: ${message}`);
        const gateway = await openGateway(session, {
          version: ctx.version,
          log,
          firstListWaitMs: FIRST_LIST_WAIT_MS,
          metaTools: p.metaTools ?? 'off',
          label,
          // Servers waiting for an OAuth login are offered to an agent that can open a URL.
          login: inbandLogin(ctx.daemon, session),
        });
        // Runs at once when the agent already hung up: nothing stays open for it.
        call.conn.onClose(() => {
          gateway.onclose = undefined;
          return gateway.close();
        });
        return {
          result: { sessionId: session.id },
          start(connection) {
            const transport = new GatewaySocketTransport(connection, { log });
            gateway.onclose = () => {
              void transport.close();
            };
            gateway.connect(transport).catch((err: unknown) => {
              log(`cannot serve the agent: ${errorText(err)}`);
              connection.socket.destroy();
            });
          },
        };
      },
    ),
  };
}
