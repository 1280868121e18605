/**
 * What HTTP clients leave unread, counted: the bytes each response holds in the daemon that
 * its client has not taken yet (node's `writableLength`: the response's buffer and its
 * socket's), per MCP session (the only client HTTP can tell apart) and for all of them
 * together, each against a limit. One stream's bytes alone bounded nothing: a client that
 * starts many calls with large answers and reads none held their sum, and an answer written
 * whole is held after its exchange is over.
 *
 * Guarantees:
 * - A response is counted from a write that leaves bytes unread until it is flushed
 *   ('finish') or closed, also after the endpoint's exchange ended; a write that leaves
 *   nothing unread costs nothing more.
 * - After every write (`wrote`): a response over `perStream` is dropped; then, while its
 *   session holds more than `perSession`, the session's largest response is dropped; then,
 *   while all hold more than `total`, the largest response of the session holding the most.
 *   So the client that reads least loses its answers, never one that keeps up. Counts are
 *   read again before a drop is decided (node says nothing when a buffer shrinks but does
 *   not empty). Node counts a write as unread until the socket took all of it, which is what
 *   the daemon holds (the written buffer is kept whole until then); what the kernel's socket
 *   buffers already took is outside the count.
 * - So the daemon holds at most `total` of unread bytes, plus the one write that passed it.
 * - Dropping destroys the response: its connection closes and its memory goes (a stream's
 *   events stay in the replay window for a resume). `onDrop` is told which, why, and the
 *   counts after it.
 */

/** What the ledger needs of a response; node's ServerResponse has it. */
export interface UnreadResponse {
  readonly writableLength: number;
  destroy(): unknown;
  on(event: 'drain' | 'finish' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'finish' | 'close', listener: () => void): unknown;
}

export interface UnreadLimits {
  /** Unread bytes of one response. */
  readonly perStream: number;
  /** Unread bytes of one session's responses together. */
  readonly perSession: number;
  /** Unread bytes of all responses together. */
  readonly total: number;
}

/** Which limit a drop kept. */
export type UnreadScope = 'stream' | 'session' | 'daemon';

export interface UnreadDrop {
  /** The session whose response was dropped. */
  readonly owner: string;
  readonly scope: UnreadScope;
  /** The dropped response's unread bytes. */
  readonly bytes: number;
  /** What the session and all sessions hold unread after the drop. */
  readonly ownerBytes: number;
  readonly totalBytes: number;
}

interface Owner {
  readonly id: string;
  bytes: number;
  readonly counted: Set<Counted>;
}

interface Counted {
  readonly res: UnreadResponse;
  readonly owner: Owner;
  bytes: number;
  dropped: boolean;
  readonly recount: () => void;
  readonly forget: () => void;
}

export class UnreadLedger {
  readonly #limits: UnreadLimits;
  readonly #onDrop: (drop: UnreadDrop) => void;
  readonly #owners = new Map<string, Owner>();
  readonly #of = new WeakMap<UnreadResponse, Counted>();
  #total = 0;

  constructor(limits: UnreadLimits, onDrop: (drop: UnreadDrop) => void) {
    this.#limits = limits;
    this.#onDrop = onDrop;
  }

  /** Unread bytes of all responses counted now. */
  get bytes(): number {
    return this.#total;
  }

  /** Unread bytes of `owner`'s responses counted now. */
  bytesOf(owner: string): number {
    return this.#owners.get(owner)?.bytes ?? 0;
  }

  /**
   * Counts what `res`, a response of session `owner`, holds unread after a write, and keeps
   * the limits; false when `res` itself was dropped (write nothing more to it).
   */
  wrote(res: UnreadResponse, owner: string): boolean {
    let counted = this.#of.get(res);
    if (counted?.dropped) return false;
    const now = res.writableLength;
    if (!counted) {
      if (now === 0) return true;
      counted = this.#count(res, owner);
    }
    this.#set(counted, now);
    this.#keepLimits(counted);
    return !counted.dropped;
  }

  #count(res: UnreadResponse, id: string): Counted {
    let owner = this.#owners.get(id);
    if (!owner) {
      owner = { id, bytes: 0, counted: new Set() };
      this.#owners.set(id, owner);
    }
    const counted: Counted = {
      res,
      owner,
      bytes: 0,
      dropped: false,
      recount: () => this.#set(counted, res.writableLength),
      forget: () => this.#forget(counted),
    };
    owner.counted.add(counted);
    this.#of.set(res, counted);
    res.on('drain', counted.recount);
    res.on('finish', counted.forget);
    res.on('close', counted.forget);
    return counted;
  }

  #set(counted: Counted, bytes: number): void {
    if (!counted.owner.counted.has(counted)) return;
    const delta = bytes - counted.bytes;
    counted.bytes = bytes;
    counted.owner.bytes += delta;
    this.#total += delta;
  }

  #forget(counted: Counted): void {
    const { owner, res } = counted;
    if (!owner.counted.has(counted)) return;
    this.#set(counted, 0);
    owner.counted.delete(counted);
    res.off('drain', counted.recount);
    res.off('finish', counted.forget);
    res.off('close', counted.forget);
    if (owner.counted.size === 0) this.#owners.delete(owner.id);
  }

  #keepLimits(counted: Counted): void {
    const { perStream, perSession, total } = this.#limits;
    if (counted.bytes > perStream) this.#drop(counted, 'stream');
    const owner = counted.owner;
    if (owner.bytes > perSession) {
      this.#recount(owner);
      for (let victim = largest(owner); owner.bytes > perSession && victim; victim = largest(owner))
        this.#drop(victim, 'session');
    }
    if (this.#total > total) {
      for (const o of this.#owners.values()) this.#recount(o);
      while (this.#total > total) {
        const victim = largest(mostHolding(this.#owners.values()));
        if (!victim) break;
        this.#drop(victim, 'daemon');
      }
    }
  }

  #recount(owner: Owner): void {
    for (const counted of owner.counted) counted.recount();
  }

  #drop(counted: Counted, scope: UnreadScope): void {
    const { owner, bytes } = counted;
    counted.dropped = true;
    this.#forget(counted);
    counted.res.destroy();
    this.#onDrop({
      owner: owner.id,
      scope,
      bytes,
      ownerBytes: owner.bytes,
      totalBytes: this.#total,
    });
  }
}

/** The owner's response holding the most unread bytes (none when nothing is unread). */
function largest(owner: Owner | undefined): Counted | undefined {
  let best: Counted | undefined;
  for (const counted of owner?.counted ?? [])
    if (counted.bytes > 0 && (!best || counted.bytes > best.bytes)) best = counted;
  return best;
}

function mostHolding(owners: Iterable<Owner>): Owner | undefined {
  let best: Owner | undefined;
  for (const owner of owners) if (!best || owner.bytes > best.bytes) best = owner;
  return best;
}
