/**
 * The tasks one agent created through the gateway (MCP task-augmented tool calls), and on
 * which server. A pooled server is shared by several agents and sees one client, so the
 * gateway is what keeps one agent from reading, cancelling or listing another's tasks.
 *
 * Guarantees: a task is known when the tool call that created it answered with its `taskId`;
 * `owner` knows nothing else (no guessing from ids); bounded, oldest forgotten first.
 */
const MAX_TASKS = 10_000;

export class TaskTable {
  readonly #owners = new Map<string, string>();

  /** Records the task a tool call's result created, if it is a CreateTaskResult. */
  learn(server: string, result: Record<string, unknown>): void {
    const task = result.task;
    if (typeof task !== 'object' || task === null) return;
    const taskId = (task as { taskId?: unknown }).taskId;
    if (typeof taskId !== 'string') return;
    this.#owners.delete(taskId);
    this.#owners.set(taskId, server);
    if (this.#owners.size > MAX_TASKS) {
      const oldest = this.#owners.keys().next();
      if (!oldest.done) this.#owners.delete(oldest.value);
    }
  }

  /** The server of a task this agent created. */
  owner(taskId: unknown): string | undefined {
    return typeof taskId === 'string' ? this.#owners.get(taskId) : undefined;
  }
}
