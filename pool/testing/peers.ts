/**
 * An AgentPeer that records what the pool asked and told it, for tests. Not exported from
 * `pool/index.ts`.
 */
import type { Root } from '@modelcontextprotocol/sdk/types.js';
import type { AgentPeer, McpMessage } from '../types.js';

export type PeerCapability = 'sampling' | 'elicitation';

export type PeerAnswer = (
  message: McpMessage,
  signal: AbortSignal,
  peer: RecordingPeer,
) => Promise<Record<string, unknown>>;

export interface RecordingPeerOptions {
  readonly can?: readonly PeerCapability[];
  readonly roots?: readonly Root[];
  /** Its session's workspace. Default: process.cwd(), testTicket's default workspace. */
  readonly workspace?: string;
  /** The tasks it created on the server (ids), see AgentPeer.ownsTask. */
  readonly tasks?: readonly string[];
  /** How it answers a server's request. Default: at once, naming itself (see defaultAnswer). */
  readonly answer?: PeerAnswer;
}

export class RecordingPeer implements AgentPeer {
  readonly label: string;
  readonly workspace: string;
  readonly can: Set<PeerCapability>;
  readonly tasks: Set<string>;
  rootList: readonly Root[];
  answer: PeerAnswer;
  /** Every server request forwarded to it, in order. */
  readonly requests: McpMessage[] = [];
  /** The methods of the forwarded requests whose signal was aborted. */
  readonly aborted: string[] = [];
  /** Every notification it heard, with the pool key it came from. */
  readonly notes: Array<{ key: string; message: McpMessage }> = [];

  constructor(label: string, options: RecordingPeerOptions = {}) {
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

/** Sampling: a message whose model is the peer's label; elicitation: accepted with `who`. */
export const defaultAnswer: PeerAnswer = (message, _signal, peer) => {
  if (message.method === 'sampling/createMessage') {
    return Promise.resolve({
      role: 'assistant',
      content: { type: 'text', text: `answer of ${peer.label}` },
      model: peer.label,
    });
  }
  return Promise.resolve({ action: 'accept', content: { who: peer.label } });
};

/** Never answers; rejects when its request is aborted. */
export const hangingAnswer: PeerAnswer = (_message, signal) =>
  new Promise((_resolve, reject) => {
    const fail = (): void => reject(new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
