/**
 * A server's tools and prompts as one connection knows them: listed when it opens, re-listed
 * after the server says they changed (`tools/list_changed`, `prompts/list_changed`).
 *
 * Guarantees:
 * - `list(kind)` lists every page (listing.ts: prompts only when the server declares them) and
 *   keeps the result; it fails like the listing does.
 * - `changed(kind)` re-lists, serialised: one re-list in flight plus one pending, whatever the
 *   number of notifications. Only while the connection is live: changes that come while it
 *   opens wait for `flush()`. Within the re-list budget: past it the next re-list waits, and
 *   the changes meanwhile coalesce into it. After each re-list, while still live, `onChanged`.
 * - A re-list that fails leaves the old list; the failure goes to `onFailed` while the
 *   connection is live (a dead connection is reported by the connection itself).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Prompt, Tool } from '@modelcontextprotocol/sdk/types.js';
import { sleep } from './abort.js';
import { listAllPrompts, listAllTools } from './listing.js';

export type ListKind = 'tools' | 'prompts';

export interface ServerListsOptions {
  /** The connection's SDK Client, once it has one. */
  readonly client: () => Client | undefined;
  /** Whether the connection is live (ready or draining in its pool). */
  readonly live: () => boolean;
  /** ms until a re-list is within the budget, taking it when 0 (TrafficGuard.takeRelist). */
  readonly relistWait: () => number;
  /** Ends listings and waits: the connection's discovery deadline, cancel or end. */
  readonly signal: AbortSignal;
  /** ms one listing request may take. */
  readonly timeoutMs: number;
  /** A re-list finished and the connection is live: holders should hear of it. */
  readonly onChanged: () => void;
  readonly onFailed: (err: unknown) => void;
}

export class ServerLists {
  tools: Tool[] = [];
  prompts: Prompt[] = [];
  readonly #options: ServerListsOptions;
  /** Lists a change asked for that are not re-listed yet. */
  readonly #dirty = new Set<ListKind>();
  #relisting: Promise<void> | undefined;

  constructor(options: ServerListsOptions) {
    this.#options = options;
  }

  /** Lists `kind` now (every page) on `client`. */
  async list(kind: ListKind, client: Client): Promise<void> {
    const opts = { timeout: this.#options.timeoutMs, signal: this.#options.signal };
    if (kind === 'tools') this.tools = await listAllTools(client, opts);
    else this.prompts = await listAllPrompts(client, opts);
  }

  /** The server said `kind` changed. */
  changed(kind: ListKind): void {
    this.#dirty.add(kind);
    if (this.#relisting || !this.#options.live()) return; // opening: runs at flush()
    this.#relisting = this.#relist();
  }

  /** The connection became live: re-lists what changed while it opened. */
  flush(): void {
    const kinds = [...this.#dirty];
    this.#dirty.clear();
    for (const kind of kinds) this.changed(kind);
  }

  async #relist(): Promise<void> {
    const { client, live, relistWait, signal } = this.#options;
    try {
      for (let c = client(); this.#dirty.size > 0 && live() && c; c = client()) {
        // Over the budget: wait; notifications meanwhile only mark the lists dirty.
        const wait = relistWait();
        if (wait > 0) {
          await sleep(wait, signal);
          continue;
        }
        const kinds = [...this.#dirty];
        this.#dirty.clear();
        for (const kind of kinds) await this.list(kind, c);
        if (!live()) return;
        this.#options.onChanged();
      }
    } catch (err) {
      if (live()) this.#options.onFailed(err);
    } finally {
      this.#relisting = undefined;
    }
  }
}
