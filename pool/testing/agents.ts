/**
 * A PoolAgent that records what the pool asked and told it, for tests. Not exported from
 * `pool/index.ts`.
 */
import type { Root } from '@modelcontextprotocol/sdk/types.js';
import type { McpMessage, PoolAgent } from '../types.js';

export type AgentCapability = 'sampling' | 'elicitation';

export type AgentAnswer = (
  message: McpMessage,
  signal: AbortSignal,
  agent: RecordingPoolAgent,
) => Promise<Record<string, unknown>>;

export interface RecordingPoolAgentOptions {
  readonly can?: readonly AgentCapability[];
  readonly roots?: readonly Root[];
  /** Its session's workspace. Default: process.cwd(), testTicket's default workspace. */
  readonly workspace?: string;
  /** The tasks it created on the server (ids), see PoolAgent.ownsTask. */
  readonly tasks?: readonly string[];
  /** How it answers a server's request. Default: at once, naming itself (see defaultAnswer). */
  readonly answer?: AgentAnswer;
}

export class RecordingPoolAgent implements PoolAgent {
  readonly label: string;
  readonly workspace: string;
  readonly can: Set<AgentCapability>;
  readonly tasks: Set<string>;
  rootList: readonly Root[];
  answer: AgentAnswer;
  /** Every server request forwarded to it, in order. */
  readonly requests: McpMessage[] = [];
  /** The methods of the forwarded requests whose signal was aborted. */
  readonly aborted: string[] = [];
  /** Every notification it heard, with the pool key it came from. */
  readonly notes: Array<{ key: string; message: McpMessage }> = [];

  constructor(label: string, options: RecordingPoolAgentOptions = {}) {
    this.label = label;
    this.workspace = options.workspace ?? process.cwd();
    this.can = new Set(options.can ?? []);
    this.tasks = new Set(options.tasks ?? []);
    this.rootList = options.roots ?? [];
    this.answer = options.answer ?? defaultAnswer;
  }

  canAnswer(message: McpMessage): boolean {
    if (message.method === 'sampling/createMessage') return this.can.has('sampling');
    if (message.method === 'elicitation/create') return this.can.has('elicitation');
    return false;
  }

  request(message: McpMessage, options: { signal: AbortSignal }): Promise<Record<string, unknown>> {
    this.requests.push(message);
    options.signal.addEventListener('abort', () => this.aborted.push(message.method), {
      once: true,
    });
    return this.answer(message, options.signal, this);
  }

  roots(): readonly Root[] {
    return this.rootList;
  }

  ownsTask(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  notify(key: string, message: McpMessage): void {
    this.notes.push({ key, message });
  }

  /** The notifications it heard of one method. */
  heard(method: string): McpMessage[] {
    return this.notes.filter((n) => n.message.method === method).map((n) => n.message);
  }
}

/** Sampling: a message whose model is the agent's label; elicitation: accepted with `who`. */
export const defaultAnswer: AgentAnswer = (message, _signal, agent) => {
  if (message.method === 'sampling/createMessage') {
    return Promise.resolve({
      role: 'assistant',
      content: { type: 'text', text: `answer of ${agent.label}` },
      model: agent.label,
    });
  }
  return Promise.resolve({ action: 'accept', content: { who: agent.label } });
};

/** Never answers; rejects when its request is aborted. */
export const hangingAnswer: AgentAnswer = (_message, signal) =>
  new Promise((_resolve, reject) => {
    const fail = (): void => reject(new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
