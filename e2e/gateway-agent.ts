/**
 * Helpers for the gateway e2e tests (issue #14): an MCP client that behaves like a full agent
 * (declares sampling, elicitation and roots, answers them, records every notification it gets),
 * the transports that reach server-everything straight or through the built `mcpctl serve`, and
 * list helpers that follow `nextCursor`.
 *
 * Guarantees:
 * - Every server→client request and notification the agent receives is recorded, in order of
 *   arrival, so a test can say exactly which agent got what.
 * - Progress is recorded by our own handler (replacing the SDK's): the SDK's own one drops the
 *   last notification whenever it arrives in the same read as the response (it handles
 *   notifications a microtask later than responses), which would make counts flaky.
 * - Every request the agent sends is counted by method (`sent`), so a test can prove that the
 *   client never asked for something (e.g. tools/list).
 * - A client that cannot connect fails with serve's stderr in the message.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type LoggingMessageNotification,
  type ProgressNotification,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { isAlive, type TestEnv } from './harness.js';
import { until } from '../testing/until.js';
import { textOf } from '../testing/tool-results.js';
import { messageOf } from '../api/index.js';

const requireHere = createRequire(import.meta.url);
/** The real reference server of the MCP project, which exercises every feature of MCP. */
export const EVERYTHING_SERVER = path.join(
  path.dirname(requireHere.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** How long one request may take before the step that sent it is recorded as failed. */
export const REQUEST_TIMEOUT_MS = 20_000;

export interface AgentOptions {
  /** Names the agent in failure messages and in its sampling/elicitation answers. */
  readonly label: string;
  readonly roots?: readonly Root[];
  /** Default: sampling, elicitation (form) and roots with listChanged. */
  readonly capabilities?: ClientCapabilities;
  /** Who the sampling and elicitation answers say they come from (default: label). */
  readonly answerAs?: string;
}

/** An MCP client that records everything the server side sends it. */
export class RecordingAgent {
  readonly client: Client;
  readonly label: string;
  readonly samplingRequests: CreateMessageRequest['params'][] = [];
  readonly elicitationRequests: ElicitRequest['params'][] = [];
  readonly logs: LoggingMessageNotification['params'][] = [];
  readonly updated: string[] = [];
  readonly progress: ProgressNotification['params'][] = [];
  /** Errors the SDK client reported (unknown response ids, bad messages, ...). */
  readonly errors: string[] = [];
  /** Methods of the requests this agent sent, in order. */
  readonly sent: string[] = [];
  rootsRequests = 0;
  #roots: Root[];
  #stderr: () => string = () => '';
  #pid: number | undefined;

  constructor(opts: AgentOptions) {
    this.label = opts.label;
    const answerAs = opts.answerAs ?? opts.label;
    this.#roots = [...(opts.roots ?? [])];
    const capabilities = opts.capabilities ?? {
      sampling: {},
      elicitation: {},
      roots: { listChanged: true },
    };
    this.client = new Client({ name: `e2e-${opts.label}`, version: '1.0.0' }, { capabilities });
    this.client.onerror = (err) => this.errors.push(err.message);
    // The SDK refuses a handler for a capability the client does not declare.
    if (capabilities.roots)
      this.client.setRequestHandler(ListRootsRequestSchema, () => {
        this.rootsRequests += 1;
        return { roots: this.#roots };
      });
    if (capabilities.sampling)
      this.client.setRequestHandler(CreateMessageRequestSchema, (request): CreateMessageResult => {
        this.samplingRequests.push(request.params);
        return {
          role: 'assistant',
          model: `model-of-${answerAs}`,
          stopReason: 'endTurn',
          content: { type: 'text', text: `answer from ${answerAs}` },
        };
      });
    if (capabilities.elicitation)
      this.client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
        this.elicitationRequests.push(request.params);
        return { action: 'accept', content: { name: `user of ${answerAs}`, check: true } };
      });
    this.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      this.logs.push(n.params);
    });
    this.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      this.updated.push(n.params.uri);
    });
    this.client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      this.progress.push(n.params);
    });
  }

  /** Connects over `transport`, counting what it sends; fails with serve's stderr. */
  async connect(transport: Transport, stderr: () => string = () => ''): Promise<void> {
    this.#stderr = stderr;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ('method' in message && 'id' in message) this.sent.push(message.method);
      return send(message, options);
    };
    try {
      await this.client.connect(transport);
    } catch (err) {
      throw new Error(`${this.label} could not connect: ${messageOf(err)}; stderr: ${stderr()}`);
    }
    if (transport instanceof StdioClientTransport) this.#pid = transport.pid ?? undefined;
  }

  stderr(): string {
    return this.#stderr();
  }

  /** Replaces the roots and tells the server (notifications/roots/list_changed). */
  async setRoots(roots: readonly Root[]): Promise<void> {
    this.#roots = [...roots];
    await this.client.sendRootsListChanged();
  }

  /** Progress received for one token, without the token. */
  progressOf(token: string | number): { progress: number; total?: number }[] {
    return this.progress
      .filter((p) => p.progressToken === token)
      .map((p) => ({ progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }) }));
  }

  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    opts: { progressToken?: string | number; signal?: AbortSignal } = {},
  ): Promise<CallToolResult> {
    return (await this.client.callTool(
      {
        name,
        arguments: args,
        ...(opts.progressToken === undefined
          ? {}
          : { _meta: { progressToken: opts.progressToken } }),
      },
      undefined,
      { timeout: REQUEST_TIMEOUT_MS, ...(opts.signal ? { signal: opts.signal } : {}) },
    )) as CallToolResult;
  }

  /** Closes the client and waits for the process it spawned to be gone. */
  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
    const pid = this.#pid;
    if (pid !== undefined)
      await until(`${this.label} to exit`, () => !isAlive(pid), { timeoutMs: 10_000 });
  }
}

/** server-everything on stdio, spawned straight by the client (the "direct" half). */
export function directTransport(env: TestEnv): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [EVERYTHING_SERVER],
    env: env.env() as Record<string, string>,
    cwd: env.root,
    stderr: 'pipe',
  });
  return transport;
}

/**
 * Connects `agent` through `mcpctl serve` (`TestEnv.serveTransport`, with extra serve flags:
 * `--meta-tools`, ...); serve's pid is tracked for cleanup once it started.
 */
export async function connectThroughServe(
  env: TestEnv,
  agent: RecordingAgent,
  opts: { workspace?: string; args?: readonly string[] } = {},
): Promise<void> {
  const { transport, stderr } = env.serveTransport(opts);
  await agent.connect(transport, stderr);
  env.trackPid(transport.pid ?? undefined);
}

/**
 * Every item of a paged list: follows `nextCursor` until there is none (a cursor seen twice is
 * an error, not an endless loop).
 */
export async function listAll<I>(
  page: (cursor: string | undefined) => Promise<{ items: I[]; nextCursor?: string | undefined }>,
): Promise<I[]> {
  const out: I[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const { items, nextCursor } = await page(cursor);
    out.push(...items);
    if (nextCursor === undefined) return out;
    assert.ok(!seen.has(nextCursor), `the cursor ${nextCursor} came back twice`);
    seen.add(nextCursor);
    cursor = nextCursor;
  }
}

/** The text of a result's first content item ('' if it is not text): testing/tool-results.ts. */
export { textOf };
