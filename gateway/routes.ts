/**
 * The gateway's map from agent-visible names (tool-names.ts) back to (server, name).
 *
 * Guarantees:
 * - One visible name routes to exactly one pair: should two pairs ever share a name (a hash
 *   collision, or a server listing one tool twice) the first listed keeps it and the others
 *   are left out and reported once each through `onConflict`; nothing is misrouted.
 * - A name that left the listing still finds its server (for the `why` answer) while it is
 *   among the last `MAX_FORMER` names that left; readable names are decoded at any time.
 */
import { parseQualifiedName, qualifiedName } from './tool-names.js';

export interface Route {
  readonly server: string;
  readonly name: string;
}

/** Names remembered after they left a listing: bounded, a server can churn names forever. */
const MAX_FORMER = 4096;

export class RouteTable {
  #current = new Map<string, Route>();
  readonly #former = new Map<string, Route>();
  readonly #reported = new Set<string>();

  constructor(private readonly onConflict: (message: string) => void) {}

  /**
   * Replaces the routes with one entry per (server, item); returns the visible name of each
   * item kept, in listing order (undefined for an item left out).
   */
  replace(
    entries: readonly { server: string; names: readonly string[] }[],
  ): (string | undefined)[][] {
    const next = new Map<string, Route>();
    const kept = entries.map(({ server, names }) =>
      names.map((name) => {
        const visible = qualifiedName(server, name);
        const taken = next.get(visible);
        if (!taken) {
          next.set(visible, { server, name });
          return visible;
        }
        this.#report(visible, taken, { server, name });
        return undefined;
      }),
    );
    for (const [visible, route] of this.#current)
      if (!next.has(visible)) this.#remember(visible, route);
    for (const visible of next.keys()) this.#former.delete(visible);
    this.#current = next;
    return kept;
  }

  /** The route of a name in the current listing. */
  get(visible: string): Route | undefined {
    return this.#current.get(visible);
  }

  /** The server a name not in the listing belonged to, when that can be known. */
  formerServer(visible: string): string | undefined {
    return this.#former.get(visible)?.server ?? parseQualifiedName(visible)?.server;
  }

  #remember(visible: string, route: Route): void {
    this.#former.delete(visible);
    this.#former.set(visible, route);
    if (this.#former.size > MAX_FORMER) {
      const oldest = this.#former.keys().next();
      if (!oldest.done) this.#former.delete(oldest.value);
    }
  }

  #report(visible: string, kept: Route, dropped: Route): void {
    const key = JSON.stringify([visible, dropped.server, dropped.name]);
    if (this.#reported.has(key)) return;
    if (this.#reported.size >= MAX_FORMER) this.#reported.clear();
    this.#reported.add(key);
    // Quoted as JSON: names come from servers and config files, and may hold anything.
    const q = (s: string) => JSON.stringify(s);
    const what =
      kept.server === dropped.server && kept.name === dropped.name
        ? 'the server lists it more than once'
        : `${q(kept.name)} of server ${q(kept.server)} has the same name`;
    this.onConflict(
      `${q(dropped.name)} of server ${q(dropped.server)} cannot be offered as ${visible}: ${what}`,
    );
  }
}
