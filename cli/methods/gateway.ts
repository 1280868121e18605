/**
 * `gateway.open`: the first line of an agent's connection (what `mcpctl serve` writes). It opens
 * (or joins) a session like `session.open`, opens that session's gateway for this agent, and
 * answers `{ sessionId }`; from then on every line of the connection, both ways, is MCP between
 * the agent and its gateway (cli/rpc/gateway-socket.ts).
 *
 * Guarantees:
 * - Params are checked as `session.open`'s (absolute paths, the agent's environment), plus
 *   `metaTools` and `protocol`; a refusal is an error answer, then the connection closes.
 *   Nothing is held then.
 * - The answer says which gateway protocol both sides speak (the lower of serve's and ours),
 *   and which daemon this is (`pid`, `version`); a serve without `protocol` speaks 1 and gets
 *   the answer of protocol 1, `{ sessionId }`. A serve
 *   whose protocol is older than the oldest we speak is refused with ProtocolMismatch before
 *   anything opens, the message saying to run `mcpctl stop`.
 * - A connection of protocol 2 or later is told, as its last line, when the daemon stops and
 *   whether to come back at once (stop-notices.ts).
 * - The session is held by the connection until it closes; closing the connection closes the
 *   gateway (the agent's calls are aborted, its subscriptions dropped), and a gateway that
 *   closes itself closes the connection. A connection that hangs up while the gateway opens
 *   leaves nothing open (an OAuth login offered to the agent included: its listener closes).
 */
import { z } from 'zod';
import { GATEWAY_OPEN, GatewaySocketTransport } from '../rpc/gateway-socket.js';
import { GATEWAY_PROTOCOL, MIN_GATEWAY_PROTOCOL, RpcCodes, RpcError } from '../rpc/protocol.js';
import { handover, type HandoverTable } from '../rpc/methods.js';
import { messageOf } from '../errors.js';
import { gatewayLog, openAgentGateway } from '../agent/gateway.js';
import { openHeld, type MethodContext } from './context.js';
import { openShape, openSpec } from './sessions.js';

export function gatewayHandovers(ctx: MethodContext): HandoverTable {
  return {
    [GATEWAY_OPEN]: handover(
      z.object({
        ...openShape,
        metaTools: z.enum(['off', 'add', 'only']).optional(),
        protocol: z.number().int().positive().optional(),
      }),
      "{ sessionId, protocol, pid, version }: opens (or joins) a workspace's session like session.open, then the connection carries MCP to that session's gateway (first line only)",
      async (p, call) => {
        const protocol = Math.min(p.protocol ?? 1, GATEWAY_PROTOCOL);
        if (protocol < MIN_GATEWAY_PROTOCOL)
          throw new RpcError(
            RpcCodes.ProtocolMismatch,
            `this mcpctl daemon (${ctx.version}, pid ${process.pid}) speaks gateway protocol ${MIN_GATEWAY_PROTOCOL} to ${GATEWAY_PROTOCOL}, the mcpctl serve ${p.protocol ?? 1}: run \`mcpctl stop\`; the next mcpctl serve then starts a daemon of its own version`,
          );
        const held = await openHeld(ctx, call.conn, openSpec(p), {
          transport: 'serve',
          workspaceFrom: 'serve',
          name: p.pid ? `serve pid ${p.pid}` : 'serve',
        });
        const { session } = held;
        const label = `agent${p.pid ? ` (serve pid ${p.pid})` : ''} of session ${session.id}`;
        const log = gatewayLog(label, (message) => ctx.log(message));
        const gateway = await openAgentGateway(ctx.daemon, session, {
          version: ctx.version,
          log,
          metaTools: p.metaTools ?? 'off',
          label,
          onInitialized: (info) => held.identify(info ?? {}),
        });
        // Runs at once when the agent already hung up: nothing stays open for it.
        call.conn.onClose(() => {
          gateway.onclose = undefined;
          return gateway.close();
        });
        return {
          // Protocol 1 (a serve that sent none) gets the answer it knows.
          result:
            protocol === 1
              ? { sessionId: session.id }
              : { sessionId: session.id, protocol, pid: process.pid, version: ctx.version },
          start(connection) {
            const transport = new GatewaySocketTransport(connection, { log });
            if (protocol >= 2) {
              const forget = ctx.stopNotices.add((notice) => transport.notifyStopping(notice));
              call.conn.onClose(forget);
            }
            gateway.onclose = () => {
              void transport.close();
            };
            gateway.connect(transport).catch((err: unknown) => {
              log(`cannot serve the agent: ${messageOf(err)}`);
              connection.socket.destroy();
            });
          },
        };
      },
    ),
  };
}
