/**
 * logging: logging/setLevel goes to every server of the session that declares logging (and to
 * those that attach later: controller/session-attachment.ts); the servers' messages come back
 * to this agent at or above its level, with `logger` naming the server (agent.ts).
 *
 * Guarantees: the agent's level holds at once, whatever the servers answer; a server that
 * fails to take it is logged, never the agent's error.
 */
import { SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayAgent } from './agent.js';
import type { GatewayContext } from './context.js';
import { messageOf } from './forward.js';

export function registerLogging(context: GatewayContext, agent: GatewayAgent): void {
  context.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    agent.setLevel(request.params.level);
    try {
      await context.attachment()?.setLogLevel(request.params.level);
    } catch (err) {
      context.log(`logging/setLevel: ${messageOf(err)}`);
    }
    return {};
  });
}
