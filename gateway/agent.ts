/**
 * One agent connection as the session's servers see it (controller's SessionAgent): what it
 * can answer, its roots, and the notifications servers send it.
 *
 * Guarantees:
 * - `canAnswer` follows what the agent declared in `initialize`: sampling, elicitation (form
 *   mode, or url mode when it declared `elicitation.url`), roots.
 * - Roots: the agent's own (`roots/list`, asked after `initialized` and again on its
 *   `roots/list_changed`) when it declares `roots`, else none — as straight behind that agent,
 *   where the server is never asked: a server such as server-filesystem keeps the directories
 *   its args give (offering the workspace instead would take them away).
 * - `notifications/message` reach the agent only at or above the level it set (all, when it
 *   set none), with `logger` naming the server (`server` or `server/logger`).
 * - A task's status reaches only the agent that created the task.
 * - A server's `resources/list_changed` is passed on at most once per `minIntervalMs`.
 * - Nothing here throws into the pool: a notification that cannot be sent is reported through
 *   `log` and dropped.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListRootsResultSchema,
  LoggingLevelSchema,
  type LoggingLevel,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SessionAgent } from '../controller/session-attachment.js';
import type { McpMessage } from '../pool/types.js';
import { Coalescer } from './coalescer.js';

/** Most verbose first: the order the spec (RFC 5424) gives, as the SDK's schema lists it. */
const LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

/** A result forwarded as the agent sent it: every field kept. */
const AnyResult = z.object({}).passthrough();

export interface AgentOptions {
  readonly label: string;
  /** How long a server's question to the agent may stay open (a person may be answering). */
  readonly requestTimeoutMs: number;
  readonly minIntervalMs: number;
  /** Whether `taskId` on `server` is a task this agent created (status goes to its owner only). */
  readonly ownsTask: (server: string, taskId: unknown) => boolean;
  readonly log: (message: string) => void;
}

export class GatewayAgent implements SessionAgent {
  readonly label: string;
  #level: LoggingLevel | undefined;
  #roots: readonly Root[];
  readonly #resourcesChanged: Coalescer;

  constructor(
    private readonly server: Server,
    private readonly o: AgentOptions,
  ) {
    this.label = o.label;
    this.#roots = [];
    this.#resourcesChanged = new Coalescer(o.minIntervalMs, () => {
      void this.server
        .sendResourceListChanged()
        .catch((err: unknown) => o.log(`could not send resources/list_changed: ${String(err)}`));
    });
  }

  canAnswer(message: McpMessage): boolean {
    const caps = this.server.getClientCapabilities();
    if (!caps) return false;
    switch (message.method) {
      case 'sampling/createMessage':
        return caps.sampling !== undefined;
      case 'roots/list':
        return caps.roots !== undefined;
      case 'elicitation/create': {
        if (caps.elicitation === undefined) return false;
        const url = message.params?.mode === 'url';
        const declared = caps.elicitation as { form?: object; url?: object };
        // An empty `elicitation: {}` is form mode (the spec's backwards-compatible default).
        return url ? declared.url !== undefined : declared.form !== undefined || !declared.url;
      }
      default:
        return false;
    }
  }

  async request(
    message: McpMessage,
    options: { readonly signal: AbortSignal },
  ): Promise<Record<string, unknown>> {
    // The SDK's typed request union has no room for a message we only pass along.
    const request = { method: message.method, params: message.params } as Parameters<
      Server['request']
    >[0];
    return this.server.request(request, AnyResult, {
      signal: options.signal,
      timeout: this.o.requestTimeoutMs,
    });
  }

  roots(): readonly Root[] {
    return this.#roots;
  }

  ownsTask(server: string, taskId: string): boolean {
    return this.o.ownsTask(server, taskId);
  }

  /** Asks the agent for its roots (when it declares them); true when they changed. */
  async refreshRoots(): Promise<boolean> {
    if (this.server.getClientCapabilities()?.roots === undefined) return false;
    const result = await this.server.request({ method: 'roots/list' }, ListRootsResultSchema, {
      timeout: 30_000,
    });
    const next = result.roots;
    const same =
      next.length === this.#roots.length && next.every((r, i) => r.uri === this.#roots[i]?.uri);
    this.#roots = next;
    return !same;
  }

  setLevel(level: LoggingLevel): void {
    this.#level = level;
  }

  notify(server: string, message: McpMessage): void {
    switch (message.method) {
      case 'notifications/message': {
        const params = message.params ?? {};
        const level = params.level as LoggingLevel;
        if (this.#level !== undefined && LEVELS.indexOf(level) < LEVELS.indexOf(this.#level))
          return;
        const logger = typeof params.logger === 'string' ? `${server}/${params.logger}` : server;
        this.#send({ method: message.method, params: { ...params, logger } });
        return;
      }
      case 'notifications/resources/list_changed':
        this.#resourcesChanged.poke();
        return;
      case 'notifications/tasks/status':
        if (this.o.ownsTask(server, message.params?.taskId)) this.#send(message);
        return;
      default:
        this.#send(message);
    }
  }

  close(): void {
    this.#resourcesChanged.close();
  }

  #send(message: McpMessage): void {
    // As above: the SDK's notification union is narrower than what servers may send.
    const notification = { method: message.method, params: message.params } as Parameters<
      Server['notification']
    >[0];
    void this.server
      .notification(notification)
      .catch((err: unknown) => this.o.log(`could not send ${message.method}: ${String(err)}`));
  }
}
