/**
 * The agent's side of a peer run: one MCP client on a system, listing tools the way an agent
 * would, and recording every listing.
 *
 * Sampling: tools/list is sent again SAMPLE_PAUSE_MS after the previous answer, or at once when
 * the system sends notifications/tools/list_changed (both systems do). So a tool shows up no
 * later than one pause plus one round trip after the system exposes it, for both alike, and
 * the sampling load on the system under test is bounded (one request in flight at a time).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** Pause between one answer and the next request while a probe waits for something. */
export const SAMPLE_PAUSE_MS = 10;

export interface Sample {
  /** performance.now() when the answer arrived. */
  readonly at: number;
  /** performance.now() when the request was sent. */
  readonly sentAt: number;
  readonly tools: ReadonlySet<string>;
}

export interface WatchOutcome {
  /** The first sample that satisfied the predicate, or undefined on timeout. */
  readonly hit: Sample | undefined;
  /** Every sample taken while watching, the hit included. */
  readonly samples: readonly Sample[];
}

export class ToolProbe {
  readonly #client: Client;
  #wake: (() => void) | undefined;
  /** performance.now() of each list_changed notification, for the trace. */
  readonly notifications: number[] = [];

  constructor(client: Client) {
    this.#client = client;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.notifications.push(performance.now());
      this.#wake?.();
    });
  }

  get client(): Client {
    return this.#client;
  }

  async sample(): Promise<Sample> {
    const sentAt = performance.now();
    const tools = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.#client.listTools(cursor === undefined ? {} : { cursor });
      for (const t of page.tools) tools.add(t.name);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { at: performance.now(), sentAt, tools };
  }

  /**
   * Samples until `done(sample)` holds, or `timeoutMs` passes; with `keepGoing`, samples for the
   * whole `timeoutMs` whatever the listings say (the hit is then the first sample that held).
   */
  async watch(opts: {
    done: (s: Sample) => boolean;
    timeoutMs: number;
    keepGoing?: boolean;
  }): Promise<WatchOutcome> {
    const samples: Sample[] = [];
    const start = performance.now();
    let hit: Sample | undefined;
    for (;;) {
      const s = await this.sample();
      samples.push(s);
      if (hit === undefined && opts.done(s)) {
        hit = s;
        if (!opts.keepGoing) break;
      }
      if (performance.now() - start >= opts.timeoutMs) break;
      await this.#pause();
    }
    return { hit, samples };
  }

  /** Waits SAMPLE_PAUSE_MS, or less when a list_changed notification arrives. */
  #pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, SAMPLE_PAUSE_MS);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}
