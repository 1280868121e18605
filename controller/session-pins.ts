/**
 * A session's side of the pin store (issue #35): where a server's pins are filed, trust on first
 * use saved, and the user's decisions about held definitions.
 *
 * Guarantees:
 * - A gated server's pins are filed under its project (the realpath the approvals use) and
 *   carry the approval hash of the config they were taken under; any other server's under its
 *   scope (`scope:user`…), so a user server is pinned once for every workspace.
 * - First pins are saved once per connectionId; a save that fails is reported (a Warning
 *   naming the file) and the pins hold in memory for this daemon's life.
 * - A decision names the held definitions as they were shown (their digests): what changed
 *   again since is not decided (it stays held, and is asked about anew).
 */
import { MCP_SERVERS, isGatedScope, messageOf, type DesiredServer } from '../api/index.js';
import { projectKeyOf, type PinStore } from '../approvals/index.js';
import {
  decidedPins,
  reviewListing,
  type HeldDefinition,
  type PinListing,
  type PinReview,
  type ToolPins,
} from '../reconcilers/pins.js';

export interface SessionPinsDeps {
  readonly store: PinStore;
  readonly workspace: string;
  /** The server `name` as configured now (its scope and config). */
  server(name: string): DesiredServer | undefined;
  /** Saving pins failed: what to tell the user. */
  onSaveFailed(name: string, message: string): void;
  now(): Date;
}

export class SessionPins implements ToolPins {
  readonly #deps: SessionPinsDeps;

  constructor(deps: SessionPinsDeps) {
    this.#deps = deps;
  }

  get file(): string {
    return this.#deps.store.path;
  }

  problem(): string | undefined {
    return this.#deps.store.problem;
  }

  review(name: string, connectionId: string, listing: PinListing): PinReview {
    const { store } = this.#deps;
    const scope = this.#scopeOf(name);
    const problem = store.problem;
    const review = reviewListing(listing, store.get(scope, connectionId), {
      ...(problem === undefined ? {} : { storeProblem: problem }),
      now: () => this.#deps.now(),
    });
    const first = review.firstPins;
    if (first) {
      const server = this.#deps.server(name);
      const gated = server !== undefined && isGatedScope(server.scope);
      const pins = gated
        ? { ...first, approvalHash: MCP_SERVERS.approvalHash(server.config) }
        : first;
      store
        .save(scope, connectionId, (current) => current ?? pins)
        .catch((err: unknown) => this.#deps.onSaveFailed(name, messageOf(err)));
    }
    return review;
  }

  /** Records the user's decision about `decided` (held definitions as shown). */
  decide(
    name: string,
    connectionId: string,
    decided: readonly HeldDefinition[],
    decision: 'accept' | 'reject',
  ): Promise<void> {
    const now = this.#deps.now();
    return this.#deps.store.save(this.#scopeOf(name), connectionId, (current) =>
      decidedPins(current, decided, decision, now),
    );
  }

  #scopeOf(name: string): string {
    const server = this.#deps.server(name);
    const scope = server?.scope ?? 'session';
    return isGatedScope(scope) ? projectKeyOf(this.#deps.workspace) : `scope:${scope}`;
  }
}
