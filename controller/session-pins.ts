/**
 * A session's side of the pin store (issue #35): where a server's pins are filed, trust on first
 * use saved, and the user's decisions about held definitions.
 *
 * Guarantees:
 * - A gated server's pins are filed under its project (the realpath the approvals use), any
 *   other server's under its scope (`scope:user`…), so a user server is pinned once for every
 *   workspace. Pins carry the approval hash of the config they were taken under.
 * - A connectionId never pinned whose config (approval hash) was pinned under another id (the
 *   same server in another agent's environment) is held against those pins, not trusted anew;
 *   a config of another hash is pinned by its first listing (after its own approval).
 * - A listing reviewed again against the same pins (every pass over a Ready server publishes
 *   it) is not digested again: the review is the last one, while its items are the same objects.
 * - First pins are saved once per connectionId; a save that fails is reported (a Warning
 *   naming the file) and the pins hold in memory for this daemon's life.
 * - A decision names the held definitions as they were shown (their digests): what changed
 *   again since is not decided (it stays held, and is asked about anew).
 */
import { MCP_SERVERS, isGatedScope, messageOf, type DesiredServer } from '../api/index.js';
import { projectKeyOf, type PinStore, type ServerPins } from '../approvals/index.js';
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

/** The inputs of a server's last review, and the review. */
interface LastReview {
  readonly connectionId: string;
  readonly listing: PinListing;
  readonly pins: ServerPins | undefined;
  readonly problem: string | undefined;
  readonly review: PinReview;
}

/** The same items, one by one (a re-list makes new objects; a kept lease keeps its own). */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

export class SessionPins implements ToolPins {
  readonly #deps: SessionPinsDeps;
  readonly #last = new Map<string, LastReview>();

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
    const own = store.get(scope, connectionId);
    // The same config run in another environment (another connectionId) is held against what
    // was accepted for it: a new agent's environment is no fresh trust on first use.
    const hash = own === undefined ? this.#approvalHashOf(name) : undefined;
    const pins = own ?? (hash === undefined ? undefined : store.sameConfig(scope, name, hash));
    // Every pass over a Ready server publishes it again: the same listing against the same
    // pins is the same review, so it is not digested again.
    const last = this.#last.get(name);
    if (
      last !== undefined &&
      last.connectionId === connectionId &&
      last.pins === pins &&
      last.problem === problem &&
      sameItems(last.listing.tools, listing.tools) &&
      sameItems(last.listing.prompts, listing.prompts)
    )
      return last.review;
    const review = reviewListing(listing, pins, {
      ...(problem === undefined ? {} : { storeProblem: problem }),
      now: () => this.#deps.now(),
    });
    this.#last.set(name, { connectionId, listing, pins, problem, review });
    const first = review.firstPins;
    if (first) {
      const taken = hash === undefined ? first : { ...first, approvalHash: hash };
      store
        .save(scope, connectionId, (current) => current ?? taken)
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
    const { store } = this.#deps;
    const scope = this.#scopeOf(name);
    const hash = this.#approvalHashOf(name);
    return store.save(scope, connectionId, (current) => {
      // Decided against the pins the review held them with: this id's, or the same config's.
      const base =
        current ?? (hash === undefined ? undefined : store.sameConfig(scope, name, hash));
      const next = decidedPins(base, decided, decision, now);
      return hash === undefined ? next : { ...next, approvalHash: hash };
    });
  }

  #approvalHashOf(name: string): string | undefined {
    const server = this.#deps.server(name);
    return server && MCP_SERVERS.approvalHash(server.config);
  }

  #scopeOf(name: string): string {
    const server = this.#deps.server(name);
    const scope = server?.scope ?? 'session';
    return isGatedScope(scope) ? projectKeyOf(this.#deps.workspace) : `scope:${scope}`;
  }
}
