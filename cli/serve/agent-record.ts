/**
 * What `mcpctl serve` remembers of its agent's MCP session, to restore it on a new gateway
 * when the daemon went away under it (keeper.ts): the agent's `initialize` and the gateway's
 * answer, `notifications/initialized`, the logging level, the resource subscriptions (roots
 * need nothing: the replayed `initialize` declares them, and the new gateway asks), and the
 * tasks the agent created (which a restart loses).
 *
 * Guarantees:
 * - Only the few messages that change this state are parsed (initialize, logging/setLevel,
 *   resources/subscribe and unsubscribe, the task methods, and answers to task-augmented
 *   calls); everything else costs nothing here.
 * - The replay is the agent's own words: the same `initialize` params, the last level it
 *   set, the URIs it subscribed to and did not unsubscribe from, in that order.
 * - Bounded: at most MAX_SUBSCRIPTIONS URIs and MAX_TASKS task ids, the oldest forgotten.
 */

const MAX_SUBSCRIPTIONS = 10_000;
const MAX_TASKS = 10_000;

type Json = Record<string, unknown>;

function parseObject(line: Buffer): Json | undefined {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Json)
      : undefined;
  } catch {
    return undefined;
  }
}

function paramsOf(message: Json | undefined): Json {
  const params = message?.params;
  return typeof params === 'object' && params !== null && !Array.isArray(params)
    ? (params as Json)
    : {};
}

/** The task methods that name one task (`params.taskId`). */
const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel']);

/** Methods whose requests the record reads (every other request is only counted in flight). */
export function recordsRequest(method: string): boolean {
  return (
    method === 'initialize' ||
    method === 'logging/setLevel' ||
    method === 'resources/subscribe' ||
    method === 'resources/unsubscribe' ||
    TASK_METHODS.has(method)
  );
}

export class AgentRecord {
  /** The agent's `initialize` request params, once it sent one. */
  #initParams: Json | undefined;
  /** The gateway's answer to it (its `result`), once one came. */
  #initResult: Json | undefined;
  #initialized = false;
  #logLevel: string | undefined;
  readonly #subscriptions = new Set<string>();
  /** Tasks the agent created on the current gateway. */
  readonly #tasks = new Set<string>();
  /** Tasks created on a gateway that went away: their state is gone. */
  readonly #lostTasks = new Set<string>();

  /**
   * Notes a request of the agent's. Returns the id of a task it names that a restart lost
   * (the caller answers it: the new gateway never heard of that task).
   */
  noteRequest(method: string, line: Buffer): { lostTask?: string } {
    if (!recordsRequest(method)) return {};
    const params = paramsOf(parseObject(line));
    switch (method) {
      case 'initialize':
        this.#initParams = params;
        this.#initResult = undefined;
        return {};
      case 'logging/setLevel':
        if (typeof params.level === 'string') this.#logLevel = params.level;
        return {};
      case 'resources/subscribe':
        if (typeof params.uri === 'string') {
          this.#subscriptions.delete(params.uri);
          this.#subscriptions.add(params.uri);
          forgetOldest(this.#subscriptions, MAX_SUBSCRIPTIONS);
        }
        return {};
      case 'resources/unsubscribe':
        if (typeof params.uri === 'string') this.#subscriptions.delete(params.uri);
        return {};
      default: {
        const taskId = params.taskId;
        return typeof taskId === 'string' && this.#lostTasks.has(taskId)
          ? { lostTask: taskId }
          : {};
      }
    }
  }

  noteInitialized(): void {
    this.#initialized = true;
  }

  /** The gateway answered the agent's `initialize` (the whole answer line). */
  noteInitializeAnswer(line: Buffer): void {
    const result = parseObject(line)?.result;
    if (typeof result === 'object' && result !== null && !Array.isArray(result))
      this.#initResult = result as Json;
  }

  /** The gateway answered a task-augmented call: the task it created, if it did. */
  noteTaskAnswer(line: Buffer): void {
    const result = parseObject(line)?.result;
    const task = typeof result === 'object' && result !== null ? (result as Json).task : undefined;
    const taskId = typeof task === 'object' && task !== null ? (task as Json).taskId : undefined;
    if (typeof taskId !== 'string') return;
    this.#tasks.add(taskId);
    forgetOldest(this.#tasks, MAX_TASKS);
  }

  /** The gateway went away: the tasks created on it are lost. */
  loseTasks(): void {
    for (const id of this.#tasks) this.#lostTasks.add(id);
    this.#tasks.clear();
    forgetOldest(this.#lostTasks, MAX_TASKS);
  }

  /** The agent's initialize params, once it sent one. */
  get initializeParams(): Json | undefined {
    return this.#initParams;
  }

  /** The gateway answered the agent's initialize: the session exists and can be restored. */
  get initializeResult(): Json | undefined {
    return this.#initResult;
  }

  get initialized(): boolean {
    return this.#initialized;
  }

  /** The requests that restore the session after `initialize` (method and params). */
  restoreRequests(): { method: string; params: Json }[] {
    const out: { method: string; params: Json }[] = [];
    if (this.#logLevel !== undefined)
      out.push({ method: 'logging/setLevel', params: { level: this.#logLevel } });
    for (const uri of this.#subscriptions)
      out.push({ method: 'resources/subscribe', params: { uri } });
    return out;
  }
}

function forgetOldest(set: Set<string>, max: number): void {
  while (set.size > max) {
    const oldest = set.values().next();
    if (oldest.done) return;
    set.delete(oldest.value);
  }
}
