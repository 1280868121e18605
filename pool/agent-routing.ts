/**
 * The agents behind one pooled connection, as its server sees them: who answers the server's
 * own requests (sampling, elicitation, roots) and who hears its notifications. One AgentRouter
 * per connection (connection.ts); several agents (of different sessions, even workspaces) may
 * share it. The router owns the state every rule reads — the attachments, the calls in flight,
 * the holders' workspaces — and its end; each concern is a file of its own, given that state:
 *
 *   ask-rules.ts        who is asked a sampling or elicitation request (never guessed, never
 *                       across workspaces: issue #22, M3)
 *   server-requests.ts  the capabilities declared, the handlers, forwarding and cancellation
 *   roots.ts            the roots/list answer and roots/list_changed
 *   subscriptions.ts    resource subscriptions, refcounted over the agents
 *   log-level.ts        the most verbose logging level the agents asked for
 *   server-link.ts      the client those send through, and the connection's end
 *
 * Guarantees:
 * - `install(client)` (before connect): server-requests.ts's capabilities and handlers, and the
 *   handler of every notification the pool does not handle itself. Until agents attach, the
 *   server's requests are answered too: roots `[]`, the others an error.
 * - `track(caller)` marks a request of an agent in flight until the returned function is called
 *   (what ask-rules.ts rules 2-3 read); `hold`/`unhold` say which sessions, of which workspace,
 *   hold the connection before any of their agents attached.
 * - Notifications: `notifications/resources/updated` reaches only the agents subscribed to its
 *   `uri` on this connection; any other (logging messages, resources/list_changed, unknown ones)
 *   reaches every attached agent. Each agent hears a notification once, however often attached.
 * - An agent's callback that throws (notify, canAnswer, ownsTask, roots) is reported through
 *   `warn` and costs nothing to the other agents or the connection.
 * - `detach()` ends the attachment: its subscriptions and logging level no longer count, and
 *   the roots answer is redone. Idempotent.
 * - `close()` (the connection ended) ends every attachment silently: forwarded requests are
 *   aborted, later `detach`/`rootsChanged`/`unsubscribe` do nothing, `subscribe`/`setLogLevel`
 *   reject with a PoolError, and `attach` throws one.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONRPCMessage, Root } from '@modelcontextprotocol/sdk/types.js';
import { recipientsOf, workspacesOf, type CallInFlight } from './ask-rules.js';
import { messageOf, PoolError } from './errors.js';
import { ServerLogLevel, type LevelWanter } from './log-level.js';
import { RootsAnswer } from './roots.js';
import { ServerLink } from './server-link.js';
import { ServerRequests } from './server-requests.js';
import { Subscriptions, type Subscriber } from './subscriptions.js';
import type { Attachment, McpMessage, PoolAgent, PoolCaller } from './types.js';

export interface AgentRouterOptions {
  /** The pool key, passed to `PoolAgent.notify`. */
  readonly key: string;
  /** The server's name in the config, for errors. */
  readonly server: string;
  /** Problems that fail nothing (an agent's callback threw, an unsubscribe failed). */
  readonly warn: (message: string) => void;
}

/** One attachment: its agent, its subscriptions (uris) and logging level, whether it ended. */
interface AttachmentState extends Subscriber, LevelWanter {
  ended: boolean;
}

export class AgentRouter {
  readonly #key: string;
  readonly #server: string;
  readonly #warn: (message: string) => void;
  readonly #attached: AttachmentState[] = [];
  readonly #inFlight: CallInFlight[] = [];
  /** The workspace of each session holding the connection (`hold`), by session id. */
  readonly #holders = new Map<string, string>();
  readonly #link: ServerLink;
  readonly #requests: ServerRequests;
  readonly #roots: RootsAnswer;
  readonly #subscriptions: Subscriptions;
  readonly #logLevel: ServerLogLevel;

  constructor(options: AgentRouterOptions) {
    this.#key = options.key;
    this.#server = options.server;
    this.#warn = options.warn;
    const warn = options.warn;
    const link = new ServerLink(options.server);
    this.#link = link;
    this.#roots = new RootsAnswer({
      link,
      agents: () => this.#agents(),
      workspaces: () => this.#workspaces().size,
      warn,
    });
    this.#requests = new ServerRequests({
      link,
      recipients: (message) => this.#recipients(message),
      roots: () => this.#roots.list(),
    });
    this.#subscriptions = new Subscriptions(link, warn);
    this.#logLevel = new ServerLogLevel({ link, attached: () => this.#attached, warn });
  }

  /** Declares our capabilities and installs the handlers; call before `client.connect`. */
  install(client: Client): void {
    this.#requests.install(client);
    this.#link.installed(client);
    this.#listen(client);
  }

  /**
   * The connection is live: from now on the router may talk to its server. A client the
   * connector did not `install` on (a foreign connector) still relays notifications.
   */
  bind(client: Client, scrub?: (text: string) => string): void {
    if (this.#link.bind(client, scrub)) this.#listen(client);
  }

  /**
   * A message from the server, before the SDK Client sees it (a step of the connection's
   * inbound pipeline, connection.ts): the cancel of request 0, which the SDK does not see
   * (server-requests.ts).
   */
  watchCancel(message: JSONRPCMessage): void {
    this.#requests.watchCancel(message);
  }

  /**
   * The session `sessionId`, of `workspace`, holds the connection (from the ticket it was
   * acquired with): it counts for "the connection's workspaces" even before any of its agents
   * attached, so a server shared with it is at once offered no other workspace's roots.
   */
  hold(sessionId: string, workspace: string): void {
    if (this.#holders.get(sessionId) === workspace) return;
    this.#holders.set(sessionId, workspace);
    this.#roots.maybeChanged();
  }

  /** The session let go of the connection. */
  unhold(sessionId: string): void {
    if (this.#holders.delete(sessionId)) this.#roots.maybeChanged();
  }

  /** Marks a request made for `caller` as in flight until the returned function is called. */
  track(caller: PoolCaller): () => void {
    const item: CallInFlight = { caller };
    this.#inFlight.push(item);
    return () => {
      const i = this.#inFlight.indexOf(item);
      if (i >= 0) this.#inFlight.splice(i, 1);
    };
  }

  /** How many uris agents are subscribed to on this connection. */
  subscriptionCount(): number {
    return this.#subscriptions.size;
  }

  attach(agent: PoolAgent): Attachment {
    if (this.#link.closed.aborted) {
      throw new PoolError(`server "${this.#server}": the connection has ended`);
    }
    const state: AttachmentState = { agent, uris: new Set(), ended: false };
    this.#attached.push(state);
    this.#roots.maybeChanged();
    return {
      rootsChanged: () => {
        if (!state.ended) this.#roots.maybeChanged();
      },
      subscribe: (uri) => this.#subscriptions.subscribe(state, uri),
      unsubscribe: (uri) => this.#subscriptions.unsubscribe(state, uri),
      setLogLevel: (level) => this.#logLevel.set(state, level),
      detach: () => this.#detach(state),
    };
  }

  /** What the server's `roots/list` is answered now (roots.ts). */
  roots(): Root[] {
    return this.#roots.list();
  }

  /** The connection ended: every attachment ends silently, forwarded requests are aborted. */
  close(): void {
    if (this.#link.closed.aborted) return;
    this.#link.close();
    for (const state of this.#attached) state.ended = true;
    this.#attached.length = 0;
    this.#inFlight.length = 0;
    this.#holders.clear();
    this.#subscriptions.clear();
  }

  #listen(client: Client): void {
    client.fallbackNotificationHandler = (notification) => {
      this.#deliver({
        method: notification.method,
        ...(notification.params !== undefined ? { params: notification.params } : {}),
      });
      return Promise.resolve();
    };
  }

  /** Each attached agent once, in attach order. */
  #agents(states: Iterable<Subscriber> = this.#attached): PoolAgent[] {
    const agents = new Set<PoolAgent>();
    for (const s of states) if (!s.ended) agents.add(s.agent);
    return [...agents];
  }

  #deliver(message: McpMessage): void {
    let recipients: PoolAgent[];
    if (message.method === 'notifications/resources/updated') {
      const uri = message.params?.['uri'];
      const subscribers =
        typeof uri === 'string' ? this.#subscriptions.subscribersOf(uri) : undefined;
      recipients = subscribers ? this.#agents(subscribers) : [];
    } else {
      recipients = this.#agents();
    }
    for (const agent of recipients) {
      try {
        agent.notify(this.#key, message);
      } catch (err) {
        this.#warn(`notify of ${agent.label} (${message.method}) threw: ${messageOf(err)}`);
      }
    }
  }

  /** The workspaces of the sessions using the connection: holders, attached agents, callers. */
  #workspaces(): Set<string> {
    return workspacesOf({
      agents: this.#agents(),
      inFlight: this.#inFlight,
      holders: this.#holders,
    });
  }

  /** Who is asked a server's request (ask-rules.ts); throws the error the server gets. */
  #recipients(message: McpMessage): readonly PoolCaller[] {
    return recipientsOf(
      {
        server: this.#server,
        agents: this.#agents(),
        inFlight: this.#inFlight,
        holders: this.#holders,
        warn: this.#warn,
      },
      message,
    );
  }

  #detach(state: AttachmentState): void {
    if (state.ended) return;
    state.ended = true;
    const i = this.#attached.indexOf(state);
    if (i >= 0) this.#attached.splice(i, 1);
    this.#subscriptions.drop(state);
    this.#logLevel.dropped(state);
    this.#roots.maybeChanged();
  }
}
