/**
 * One bounded wait for a session to settle, shared by everyone who waits during one busy spell
 * (an agent's connect and its first listing, every agent that connects meanwhile).
 *
 * Guarantees:
 * - `wait(boundMs)` resolves once the session is idle, or `boundMs` after the spell was first
 *   waited for, whichever comes first; so never later than `boundMs` from its own call.
 * - Later waits of a spell are measured from its first wait, not from their own call: once a
 *   spell was waited for in full, a wait resolves at once for as long as the session has not
 *   been idle. A server stuck in `initialize` costs one wait, not one per agent and request.
 *   (A wait with a bound of 0 waits for nothing and starts no spell.)
 * - The spell ends when the session is idle; the next wait after that starts a new one (a
 *   session that got busy again, e.g. after a config edit, is waited for again, once).
 * - No timer outlives the wait it bounds.
 */

/** A stretch of the session being busy, as the waits see it. */
interface Spell {
  /** When it was first waited for (ms since the epoch). */
  readonly since: number;
  /** Resolves when the session is idle, which ends the spell. */
  readonly idle: Promise<void>;
}

export class SharedSettleWait {
  #spell: Spell | undefined;

  /** `idle` resolves when nothing is queued or reconciling (Session.settled). */
  constructor(private readonly idle: () => Promise<void>) {}

  async wait(boundMs: number): Promise<void> {
    if (boundMs <= 0) return;
    const spell = this.#spell ?? this.#start();
    const left = spell.since + boundMs - Date.now();
    if (left <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, left);
    });
    try {
      await Promise.race([spell.idle, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  #start(): Spell {
    // A failed wait for idle counts as idle: the wait only ever costs time, never an error.
    const idle = this.idle().catch(() => undefined);
    const spell = { since: Date.now(), idle };
    this.#spell = spell;
    void idle.then(() => {
      if (this.#spell === spell) this.#spell = undefined;
    });
    return spell;
  }
}
