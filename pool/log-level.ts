/**
 * The logging level of one shared server: the most verbose level any agent attached to it
 * asked for (Attachment.setLogLevel; the agent router, agent-routing.ts, owns the agents).
 *
 * Guarantees:
 * - The server gets `logging/setLevel` with the most verbose level wanted (RFC 5424 order, as
 *   the SDK lists it), only when that level differs from the one it was last told
 *   successfully; changes are sent one at a time, in order. A server that declares no
 *   `logging` is never sent it.
 * - An agent that detaches no longer counts (`dropped`); when no agent wants a level any more,
 *   the server keeps the last one.
 * - `set` rejects with the server's error (the agent's level is then what it was) or with a
 *   PoolError once the agent detached or the connection ended. After `dropped`, a failure is
 *   reported through `warn` while the connection lasts.
 */
import { LoggingLevelSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { messageOf, PoolError } from './errors.js';
import type { ServerLink } from './server-link.js';
import type { PoolAgent } from './types.js';

/** Most verbose first: the order the spec (RFC 5424) gives, as the SDK's schema lists it. */
const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

/** An attached agent as the level sees it (the router's per-attachment state). */
export interface LevelWanter {
  readonly agent: PoolAgent;
  /** The level it asked for, if any. */
  level?: LoggingLevel;
  /** Detached (or the connection ended). */
  readonly ended: boolean;
}

export interface ServerLogLevelDeps {
  readonly link: ServerLink;
  /** The attached agents now. */
  readonly attached: () => Iterable<LevelWanter>;
  readonly warn: (message: string) => void;
}

export class ServerLogLevel {
  readonly #deps: ServerLogLevelDeps;
  /** The level the server was last told (successfully). */
  #onServer: LoggingLevel | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(deps: ServerLogLevelDeps) {
    this.#deps = deps;
  }

  async set(w: LevelWanter, level: LoggingLevel): Promise<void> {
    if (w.ended) {
      throw new PoolError(
        `server "${this.#deps.link.server}": ${w.agent.label} is no longer attached (logging/setLevel)`,
      );
    }
    this.#deps.link.live('logging/setLevel');
    const before = w.level;
    w.level = level;
    try {
      await this.#sync();
    } catch (err) {
      if (!w.ended) w.level = before;
      throw err;
    }
  }

  /** `w` detached: its level no longer counts. */
  dropped(w: LevelWanter): void {
    if (w.level === undefined) return;
    const link = this.#deps.link;
    this.#sync().catch((err: unknown) => {
      if (!link.closed.aborted)
        this.#deps.warn(`server "${link.server}": logging/setLevel: ${messageOf(err)}`);
    });
  }

  /** Tells the server the most verbose level wanted, when it differs from what it was told. */
  #sync(): Promise<void> {
    const link = this.#deps.link;
    const next = this.#chain.then(async () => {
      if (link.closed.aborted) throw link.ended();
      const want = mostVerbose(this.#deps.attached());
      if (want === undefined || want === this.#onServer) return;
      const client = link.live('logging/setLevel');
      if (!client.getServerCapabilities()?.logging) return;
      await link.send(client, 'logging/setLevel', { level: want });
      this.#onServer = want;
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }
}

function mostVerbose(wanters: Iterable<LevelWanter>): LoggingLevel | undefined {
  let best: number | undefined;
  for (const w of wanters) {
    if (w.ended || w.level === undefined) continue;
    const rank = LOG_LEVELS.indexOf(w.level);
    if (rank >= 0 && (best === undefined || rank < best)) best = rank;
  }
  return best === undefined ? undefined : LOG_LEVELS[best];
}
