/**
 * One agent connection's attachment to its session: one pool `Attachment` (pool/types.ts) per
 * Ready server of the session, followed as the registry changes. The gateway makes one per
 * agent; the pool routes the servers' requests and notifications through them, to the agent as
 * its session sees it (`SessionAgent`, made a `PoolAgent` here).
 *
 * Guarantees:
 * - The agent is attached to exactly the leases the session's registry names now: a server
 *   that becomes Ready is attached, one that goes is detached, a rolling update moves the
 *   attachment to the new connection.
 * - What the agent asked of a server survives a new connection: its resource subscriptions
 *   and its logging level are replayed on the new lease (a server that does not declare
 *   `logging` or `resources.subscribe` is never asked).
 * - Notifications reach the agent with the server's name, never the pool key.
 * - Every attachment carries the session's workspace, never one the agent claims, and asks the
 *   agent about its tasks on that server only.
 * - `detach()` ends every attachment and stops following the registry; it is idempotent.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type {
  Attachment,
  McpMessage,
  Pool,
  PoolAgent,
  PoolCaller,
  RequestOptions,
} from '../pool/types.js';
import type { Registry, RegistryEntry } from '../reconcilers/registry.js';
import { messageOf } from '../api/index.js';

/**
 * An agent as its session sees it: like a `PoolAgent`, but notifications and tasks name the
 * server, and it has no say about its workspace (its session adds its own).
 */
export interface SessionAgent extends Omit<PoolAgent, 'notify' | 'ownsTask' | 'workspace'> {
  notify(server: string, message: McpMessage): void;
  /** Whether the agent created the task `taskId` on `server`. */
  ownsTask(server: string, taskId: string): boolean;
}

/** An agent as the maker of a request, as its session sees it (the session adds the workspace). */
export type SessionCaller = Omit<PoolCaller, 'workspace'>;

/** RequestOptions as a session takes them: the caller without a workspace. */
export type SessionRequestOptions = Omit<RequestOptions, 'caller'> & {
  readonly caller?: SessionCaller;
};

/** What an agent's attachment to its session can do (Session.attachAgent). */
export interface SessionAttachment {
  /** The agent's roots changed (its own `roots/list_changed`). */
  rootsChanged(): void;
  subscribe(server: string, uri: string): Promise<void>;
  unsubscribe(server: string, uri: string): Promise<void>;
  /** The agent's level, for every server of the session that declares `logging`. */
  setLogLevel(level: LoggingLevel): Promise<void>;
  detach(): void;
}

interface Attached {
  readonly key: string;
  readonly attachment: Attachment;
}

/** `workspace`: the realpath of the agent's session's workspace (the pool keeps them apart). */
/** `start`: starts an idle server (a subscription needs it running, issue #34). */
export function attachAgent(
  pool: Pool,
  registry: Registry,
  agent: SessionAgent,
  workspace: string,
  start?: (server: string) => Promise<void>,
): SessionAttachment {
  const attached = new Map<string, Attached>();
  const subscriptions = new Map<string, Set<string>>();
  let level: LoggingLevel | undefined;
  let detached = false;

  const warn = (what: string, err: unknown) =>
    agent.notify('mcpctl', {
      method: 'notifications/message',
      params: {
        level: 'warning',
        logger: 'mcpctl',
        data: `${what}: ${messageOf(err)}`,
      },
    });

  function follow(server: string): void {
    if (detached) return;
    const entry = registry.get(server);
    const before = attached.get(server);
    if (before && before.key === entry?.key && !entry.idle) return;
    before?.attachment.detach();
    attached.delete(server);
    // An idle server has no connection to attach to; the one that starts it is attached.
    if (!entry || entry.idle) return;
    const poolAgent: PoolAgent = {
      label: agent.label,
      workspace,
      canAnswer: (m) => agent.canAnswer(m),
      request: (m, o) => agent.request(m, o),
      roots: () => agent.roots(),
      ownsTask: (taskId) => agent.ownsTask(server, taskId),
      notify: (_key, m) => agent.notify(server, m),
    };
    let attachment: Attachment;
    try {
      attachment = pool.attach(entry.key, poolAgent);
    } catch {
      // The lease is going away; the registry change that follows brings the next one.
      return;
    }
    attached.set(server, { key: entry.key, attachment });
    replay(server, entry, attachment);
  }

  function replay(server: string, entry: RegistryEntry, attachment: Attachment): void {
    if (entry.capabilities?.resources?.subscribe)
      for (const uri of subscriptions.get(server) ?? [])
        attachment.subscribe(uri).catch((err: unknown) => warn(`resubscribing ${uri}`, err));
    if (level !== undefined && entry.capabilities?.logging)
      attachment
        .setLogLevel(level)
        .catch((err: unknown) => warn(`setting the log level of ${server}`, err));
  }

  const off = registry.onChange(follow);
  for (const server of registry.entries().keys()) follow(server);

  return {
    rootsChanged() {
      for (const a of attached.values()) a.attachment.rootsChanged();
    },
    async subscribe(server, uri) {
      let uris = subscriptions.get(server);
      if (!uris) subscriptions.set(server, (uris = new Set()));
      uris.add(uri);
      // Started, it is attached and the subscription replayed on it (follow → replay).
      if (registry.get(server)?.idle && start) {
        await start(server);
        return;
      }
      await attached.get(server)?.attachment.subscribe(uri);
    },
    async unsubscribe(server, uri) {
      subscriptions.get(server)?.delete(uri);
      await attached.get(server)?.attachment.unsubscribe(uri);
    },
    async setLogLevel(next) {
      level = next;
      await Promise.all(
        [...attached].map(([server, a]) =>
          registry.get(server)?.capabilities?.logging
            ? a.attachment.setLogLevel(next)
            : Promise.resolve(),
        ),
      );
    },
    detach() {
      if (detached) return;
      detached = true;
      off();
      for (const a of attached.values()) a.attachment.detach();
      attached.clear();
    },
  };
}
