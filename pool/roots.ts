/**
 * The pool's answer to a server's `roots/list`, and when the server hears it changed. One per
 * connection, reading the agent router's state (agent-routing.ts).
 *
 * Guarantees:
 * - `list()`: the union of the attached agents' roots, deduplicated by uri, in attach order,
 *   when the connection is used by sessions of one workspace; `[]` with no agent, and `[]`
 *   while sessions of several workspaces use it (a stdio server with an absolute `cwd`, a
 *   remote server): one workspace's roots given to a server that serves another workspace's
 *   calls would let those calls reach into it.
 * - `maybeChanged()` (the router calls it on attach, detach, `hold`/`unhold` and an agent's
 *   `rootsChanged()`) sends `notifications/roots/list_changed` when the answer differs from the
 *   last one, and only then; only on a client that declared `roots.listChanged` (server-link.ts),
 *   never after the connection ended.
 * - An agent's `roots()` that throws counts as no roots and is reported through `warn`.
 */
import type { Root } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from './errors.js';
import type { ServerLink } from './server-link.js';
import type { PoolAgent } from './types.js';

export interface RootsAnswerDeps {
  readonly link: ServerLink;
  /** The attached agents, each once, in attach order. */
  readonly agents: () => readonly PoolAgent[];
  /** How many workspaces' sessions use the connection (ask-rules.ts workspacesOf). */
  readonly workspaces: () => number;
  readonly warn: (message: string) => void;
}

export class RootsAnswer {
  readonly #deps: RootsAnswerDeps;
  /** The last answer, as JSON: the server heard of every change up to it. */
  #last = '[]';

  constructor(deps: RootsAnswerDeps) {
    this.#deps = deps;
  }

  /** What `roots/list` answers now (see the guarantees). */
  list(): Root[] {
    if (this.#deps.workspaces() > 1) return [];
    const seen = new Set<string>();
    const out: Root[] = [];
    for (const agent of this.#deps.agents()) {
      let roots: readonly Root[] = [];
      try {
        roots = agent.roots();
      } catch (err) {
        this.#deps.warn(`roots() of ${agent.label} threw: ${messageOf(err)}`);
      }
      for (const root of roots) {
        if (seen.has(root.uri)) continue;
        seen.add(root.uri);
        out.push(root);
      }
    }
    return out;
  }

  /** Tells the server when the answer changed. */
  maybeChanged(): void {
    const key = JSON.stringify(this.list());
    if (key === this.#last) return;
    this.#last = key;
    const client = this.#deps.link.declared();
    if (!client) return;
    const link = this.#deps.link;
    client.notification({ method: 'notifications/roots/list_changed' }).catch((err: unknown) => {
      // A dead connection is reported by the pool; nothing else can fail here.
      if (!link.closed.aborted)
        this.#deps.warn(`server "${link.server}": roots/list_changed not sent: ${messageOf(err)}`);
    });
  }
}
