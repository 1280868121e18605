/**
 * The HTTP endpoint's table of MCP sessions (endpoint.ts), by `Mcp-Session-Id`: how many it
 * holds, which one gives its place to a new one, and which ones idled too long.
 *
 * Guarantees:
 * - Sessions being opened count against `maxSessions` as the open ones do.
 * - With `maxSessions` taken, `makeRoom` takes the least recently active idle session
 *   (HttpAgentSession `idle`: nothing in flight, nothing open but GET streams; one without a
 *   GET stream first) out of the table at once (its next request is 404), its place taken
 *   before any await, and says so in the log; when every session is busy it is `busy`, and
 *   nothing changed.
 * - A session added leaves the table when it ends, however (logged once).
 * - A session with no request and no open stream for `idleSessionMs` is closed by the sweep
 *   (every quarter of it, between 50 ms and 1 min; the timer keeps no process alive).
 */
import type { HttpAgentSession } from './agent-session.js';
import type { HttpLimits } from './limits.js';

export interface HttpSessionTableLog {
  info(obj: object, msg: string): void;
}

export class HttpSessionTable {
  readonly #limits: HttpLimits;
  readonly #log: HttpSessionTableLog;
  readonly #sessions = new Map<string, HttpAgentSession>();
  /** Sessions being opened (initialize requests in progress): they count against the limit. */
  #opening = 0;
  #sweep: NodeJS.Timeout | undefined;

  constructor(limits: HttpLimits, log: HttpSessionTableLog) {
    this.#limits = limits;
    this.#log = log;
  }

  /** MCP sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): HttpAgentSession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * Room for one more session: `undefined` when there is room, the session that gave its
   * place (out of the table already; the caller closes it), or `busy`.
   */
  makeRoom(): HttpAgentSession | undefined | 'busy' {
    const { maxSessions } = this.#limits;
    if (this.#sessions.size + this.#opening < maxSessions) return undefined;
    const evicted = this.#leastRecentlyActiveIdle();
    if (!evicted) return 'busy';
    this.#sessions.delete(evicted.id);
    this.#log.info(
      { session: evicted.session?.id ?? null, http: evicted.id.slice(0, 8) },
      `http agent ${evicted.id.slice(0, 8)} gives its place to a new one: ${maxSessions} MCP sessions are open, the daemon's limit, and it was the least recently active idle one (${Math.round((Date.now() - evicted.lastActive) / 1000)} s ago); it gets 404 and initializes again`,
    );
    return evicted;
  }

  /** A session is being opened (it holds a place) until `opened` is called. */
  opening(): void {
    this.#opening += 1;
  }

  opened(): void {
    this.#opening -= 1;
  }

  /** `agent` is served from now on, until it ends. */
  add(agent: HttpAgentSession): void {
    this.#sessions.set(agent.id, agent);
    agent.onEnd = () => {
      this.#sessions.delete(agent.id);
      this.#log.info(
        { session: agent.session?.id ?? null, http: agent.id.slice(0, 8) },
        'http agent session ended',
      );
    };
  }

  /** Starts closing idle sessions. */
  sweep(): void {
    const every = Math.max(50, Math.min(this.#limits.idleSessionMs / 4, 60_000));
    this.#sweep = setInterval(() => this.#expireIdle(), every);
    this.#sweep.unref();
  }

  /** Ends every session (their streams end); no sweep after. */
  closeAll(): Promise<void[]> {
    clearInterval(this.#sweep);
    return Promise.all([...this.#sessions.values()].map((s) => s.close()));
  }

  /**
   * The session to close for a new one when the table is full: an idle one (HttpAgentSession
   * `idle`), one without a GET stream before one with, the least recently active first.
   */
  #leastRecentlyActiveIdle(): HttpAgentSession | undefined {
    let best: HttpAgentSession | undefined;
    const rank = (a: HttpAgentSession) => (a.streams > 0 ? 1 : 0);
    for (const agent of this.#sessions.values()) {
      if (!agent.idle) continue;
      if (
        !best ||
        rank(agent) < rank(best) ||
        (rank(agent) === rank(best) && agent.lastActive < best.lastActive)
      )
        best = agent;
    }
    return best;
  }

  #expireIdle(): void {
    const now = Date.now();
    const idle = this.#limits.idleSessionMs;
    for (const agent of this.#sessions.values())
      if (agent.open === 0 && now - agent.lastActive >= idle) {
        this.#log.info(
          { session: agent.session?.id ?? null, http: agent.id.slice(0, 8) },
          `http agent session idle for ${Math.round(idle / 1000)} s: closed (the agent gets 404 and initializes again)`,
        );
        void agent.close();
      }
  }
}
