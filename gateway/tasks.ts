/**
 * tasks: tasks/get, tasks/result, tasks/cancel and tasks/list for the tasks this agent created
 * through task-augmented tool calls (task-table.ts). Task status notifications are filtered by
 * the same table (agent.ts).
 *
 * Guarantees: a request about a task this agent did not create is InvalidParams and reaches no
 * server; one about its own task goes to the server that created it, and the result and a
 * server's protocol error reach the agent as the server sent them (forward.ts). tasks/list
 * merges the servers that list tasks, keeps this agent's tasks only (a shared server lists
 * every agent's) and is paged like the other lists; a server whose list fails is left out and
 * logged. The task methods are served raw: the SDK's schemas would rebuild the results.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { asObject, type GatewayContext, type RawHandler } from './context.js';
import { messageOf } from './forward.js';
import { pageResult } from './paging.js';
import type { TaskTable } from './task-table.js';

export function registerTasks(context: GatewayContext, tasks: TaskTable): void {
  const { forwarder, pager, log } = context;

  /** tasks/get, tasks/result, tasks/cancel: only for a task this agent created. */
  const forwardTask: RawHandler = async (request, extra) => {
    const params = asObject(request.params);
    const owner = tasks.owner(params.taskId);
    if (owner === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no task ${JSON.stringify(params.taskId)} of this agent`,
      );
    return forwarder.relay(owner, { method: request.method, params }, extra);
  };

  /** This agent's tasks on every server that lists tasks. */
  async function listTasks(): Promise<Record<string, unknown>[]> {
    const servers = (await context.listing()).filter((s) => s.capabilities?.tasks?.list);
    const lists = await Promise.all(
      servers.map((s) =>
        forwarder
          .allPages<Record<string, unknown>>(s.server, 'tasks/list', 'tasks')
          .catch((err: unknown) => {
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

  context.serveRaw('tasks/get', forwardTask);
  context.serveRaw('tasks/result', forwardTask);
  context.serveRaw('tasks/cancel', forwardTask);
  context.serveRaw('tasks/list', async (request) => {
    const cursor = asObject(request.params).cursor;
    return pageResult(
      await pager.page('tasks', typeof cursor === 'string' ? cursor : undefined, listTasks),
      'tasks',
    );
  });
}
