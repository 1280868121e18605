/**
 * The pool: live connections shared by the sessions of one daemon, whatever they speak. It
 * knows keys, holders and the lifecycle; what a connection says and does belongs to the
 * connection type (MCP: connection.ts, pooled by mcp-pool.ts), which it sees only through
 * PooledConnection (pool-contract.ts, with the pool's other words).
 *
 * Guarantees:
 * - One entry, one connection per key (`keyOf(ticket)`), so equal tickets share one connection.
 * - `acquire` is single-flight per key: concurrent acquires make and open one connection; when
 *   opening fails, the connection is closed first and then every waiter is rejected with the
 *   same error, and no entry is left.
 * - An acquirer whose `signal` aborts while it still waits lets go at once, as a `config`
 *   release: its promise rejects with the signal's reason, and the open in progress is cancelled
 *   unless another session still holds or waits for the key (that one keeps waiting for the
 *   very same connection). An abort after the lease was handed out changes nothing.
 * - The pool decides nothing about admission: it accepts a ticket only for the session it was
 *   made for, and only when `refuse` finds nothing wrong with it (see mcp-pool.ts).
 * - Refs are a set of sessions. Who lets go says why (ReleaseReason): when the last ref goes
 *   because the config says stop (`config`), the connection closes at once — an open in
 *   progress is cancelled — so a removed or refused server's process really ends; when it goes
 *   because its session ended (`sessionClosed`), the entry drains for `drainDelayMs` and then
 *   closes, and an acquire during the drain cancels it and gets the very same connection.
 * - A connection that goes down on its own (`ConnectionHost.lost`) is marked failed, removed,
 *   closed, and then every holder's `onLost(reason, cause)` is called once. Callbacks that
 *   throw are reported through `warn`, never break the pool.
 * - `close()` closes every connection, including draining and still-opening ones, and resolves
 *   when all are gone. Holders are not told (shutting down is not a loss).
 * - Idle stop (`idleStopMs`): a ready, held connection with no request in flight, no
 *   subscription and none sent or answered for its idle time is removed and closed, and every
 *   holder hears `onLost(reason, 'idle')` once, in that same step (before the close ends: it is
 *   no failure to report a stderr tail of). So a request either reaches the connection before
 *   (and keeps it) or finds no live key and a holder that already knows why.
 */
import { callSafely, PoolError } from './errors.js';

export const DEFAULT_DRAIN_DELAY_MS = 30_000;

// The contract lives apart; re-exported so importers of the pool find it here.
export type * from './pool-contract.js';
import type {
  EntryState,
  LostCause,
  ReleaseReason,
  ReleaseOptions,
  AcquireOptions,
  PoolTicket,
  PoolHolder,
  ConnectionHost,
  PooledConnection,
  LeaseOf,
  ConnectionStats,
  ConnectionPoolOptions,
} from './pool-contract.js';

interface Waiter<L> {
  readonly sessionId: string;
  readonly resolve: (lease: L) => void;
  readonly reject: (err: Error) => void;
}

/** One key's connection and who holds it; the pool is the host its connection sees. */
class Entry<H extends PoolHolder, C extends PooledConnection> implements ConnectionHost<H> {
  state: EntryState = 'connecting';
  /** The holders, by session: a session holds a key once. */
  readonly refs = new Map<string, H>();
  waiters: Waiter<LeaseOf<C>>[] = [];
  startedAt: Date | undefined;
  drainTimer: NodeJS.Timeout | undefined;
  drainEndsAt: Date | undefined;
  /** The idle time each holder's ticket asks for (see ConnectionPoolOptions.idleStopMs). */
  readonly idleAsked = new Map<string, number>();
  idleTimer: NodeJS.Timeout | undefined;
  closed: Promise<void> | undefined;
  readonly connection: C;

  constructor(
    readonly key: string,
    readonly connectionId: string,
    readonly name: string,
    readonly createdAt: Date,
    make: (host: ConnectionHost<H>) => C,
    private readonly onLost: (entry: Entry<H, C>, reason: string, cause: LostCause) => void,
  ) {
    this.connection = make(this);
  }

  live(): boolean {
    return this.state === 'ready' || this.state === 'draining';
  }

  holders(): H[] {
    return [...this.refs.values()];
  }

  /** The idle time of the connection now: 0 (kept while held) when any holder asks so. */
  idleMs(): number {
    const asked = [...this.idleAsked.values()];
    return asked.length === 0 || asked.includes(0) ? 0 : Math.max(...asked);
  }

  lost(reason: string, cause: LostCause): void {
    this.onLost(this, reason, cause);
  }
}

export class ConnectionPool<
  T extends PoolTicket,
  H extends PoolHolder,
  C extends PooledConnection<T>,
> {
  readonly #keyOf: (ticket: T) => string;
  readonly #refuse: ((ticket: T) => string | undefined) | undefined;
  readonly #make: (ticket: T, key: string, host: ConnectionHost<H>) => C;
  readonly #drainDelayMs: number;
  readonly #idleStopMs: ((ticket: T) => number) | undefined;
  readonly #now: () => number;
  readonly #warn: (message: string) => void;
  readonly #entries = new Map<string, Entry<H, C>>();
  /** Opens and closes in flight, so close() can wait for all of them. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;

  constructor(options: ConnectionPoolOptions<T, H, C>) {
    this.#keyOf = options.keyOf;
    this.#refuse = options.refuse;
    this.#make = options.make;
    this.#drainDelayMs = options.drainDelayMs ?? DEFAULT_DRAIN_DELAY_MS;
    this.#idleStopMs = options.idleStopMs;
    this.#now = options.now;
    this.#warn = options.warn;
  }

  /** Single-flight per key: concurrent acquires of one key open one connection. */
  acquire(ticket: T, holder: H, options: AcquireOptions = {}): Promise<LeaseOf<C>> {
    const { signal } = options;
    if (this.#closing) return Promise.reject(new PoolError('the pool is closed'));
    if (signal?.aborted) return Promise.reject(abortReasonOf(signal));
    if (holder.sessionId !== ticket.sessionId) {
      return Promise.reject(
        new PoolError(
          `server "${ticket.name}": the ticket was admitted for session ${ticket.sessionId}, not for ${holder.sessionId}`,
        ),
      );
    }
    const refused = this.#refuse?.(ticket);
    if (refused !== undefined) return Promise.reject(new PoolError(refused));
    const key = this.#keyOf(ticket);
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = new Entry<H, C>(
        key,
        ticket.connectionId,
        ticket.name,
        new Date(this.#now()),
        (host) => this.#make(ticket, key, host),
        (e, reason, cause) => this.#lost(e, reason, cause),
      );
      this.#entries.set(key, entry);
      void this.#track(this.#open(entry));
    }
    const e = entry;
    // A session holds a key once; a second acquire by it only refreshes its callbacks.
    e.refs.set(holder.sessionId, holder);
    e.connection.hold?.(holder.sessionId, ticket);
    if (this.#idleStopMs) {
      e.idleAsked.set(holder.sessionId, Math.max(0, this.#idleStopMs(ticket)));
      if (e.state === 'ready') this.#armIdle(e);
    }
    if (e.state === 'draining') {
      this.#cancelDrain(e);
      e.state = 'ready';
      this.#armIdle(e);
    }
    if (e.state === 'ready')
      return Promise.resolve(
        e.connection.lease(e.startedAt ?? new Date(this.#now())) as LeaseOf<C>,
      );
    return new Promise<LeaseOf<C>>((resolve, reject) => {
      const onAbort = (): void => {
        if (!signal || !e.waiters.includes(waiter)) return;
        e.waiters = e.waiters.filter((w) => w !== waiter);
        reject(abortReasonOf(signal));
        this.#letGo(e, holder.sessionId, 'config');
      };
      const waiter: Waiter<LeaseOf<C>> = {
        sessionId: holder.sessionId,
        resolve: (lease) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(lease);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      e.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Drops the session's ref. At zero refs: `config` closes the connection now (an open in
   * progress is cancelled); `sessionClosed` lets it drain for drainDelayMs.
   */
  release(key: string, sessionId: string, { reason }: ReleaseOptions): void {
    const entry = this.#entries.get(key);
    if (entry) this.#letGo(entry, sessionId, reason);
  }

  /** `release` of one entry (also one an aborted acquirer waits for). */
  #letGo(entry: Entry<H, C>, sessionId: string, reason: ReleaseReason): void {
    if (this.#entries.get(entry.key) !== entry) return;
    const held = entry.refs.delete(sessionId);
    entry.idleAsked.delete(sessionId);
    if (held) entry.connection.unhold?.(sessionId);
    const mine = entry.waiters.filter((w) => w.sessionId === sessionId);
    if (mine.length > 0) {
      entry.waiters = entry.waiters.filter((w) => w.sessionId !== sessionId);
      const err = new PoolError(
        `server "${entry.name}": released by session ${sessionId} before the connection was ready`,
      );
      for (const w of mine) w.reject(err);
    }
    // Only a session that held it may end it; another session's ref keeps it either way.
    if (!held && mine.length === 0) return;
    if (entry.refs.size > 0 || entry.waiters.length > 0) {
      // What the holders left ask for may be another idle time.
      if (entry.state === 'ready') this.#armIdle(entry);
      return;
    }
    if (reason === 'config') this.#closeUnwanted(entry);
    else this.#maybeDrain(entry);
  }

  /** The session ended: releases every ref and wait of it with reason `sessionClosed`. */
  releaseSession(sessionId: string): void {
    for (const entry of [...this.#entries.values()]) {
      if (entry.refs.has(sessionId) || entry.waiters.some((w) => w.sessionId === sessionId)) {
        this.release(entry.key, sessionId, { reason: 'sessionClosed' });
      }
    }
  }

  /** Whether an entry of `key` is connecting, ready or draining (failed and closed ones go). */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The connection of `key` while the pool serves it (ready or draining). */
  live(key: string): C | undefined {
    const entry = this.#entries.get(key);
    return entry?.live() ? entry.connection : undefined;
  }

  stats(): Array<ConnectionStats & ReturnType<C['stats']>> {
    return [...this.#entries.values()].map((e) => ({
      key: e.key,
      connectionId: e.connectionId,
      name: e.name,
      state: e.state,
      refs: [...e.refs.keys()].sort(),
      pid: e.connection.pid,
      createdAt: e.createdAt,
      startedAt: e.startedAt,
      drainEndsAt: e.drainEndsAt,
      ...(e.state === 'ready' && e.idleMs() > 0 ? { idleStopMs: e.idleMs() } : {}),
      ...(e.connection.stats() as ReturnType<C['stats']>),
    }));
  }

  /** Closes every connection (process groups gone) and resolves when all are closed. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const entry of [...this.#entries.values()]) {
        if (entry.state === 'connecting') {
          // open() sees the cancel, closes what was opened and its waiters are rejected.
          entry.connection.cancel(new PoolError('the pool is closing'));
        } else {
          this.#retire(entry);
        }
      }
      this.#entries.clear();
      // Closing may start more work (an open finishing); wait until nothing is left.
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    })();
    return this.#closing;
  }

  async #open(entry: Entry<H, C>): Promise<void> {
    try {
      await entry.connection.open();
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      entry.state = 'failed';
      this.#remove(entry);
      entry.refs.clear();
      const waiters = entry.waiters;
      entry.waiters = [];
      // Kill first, then report: nobody hears "failed" while the process still runs.
      await this.#closeEntry(entry);
      for (const w of waiters) w.reject(error);
      return;
    }
    entry.state = 'ready';
    entry.startedAt = new Date(this.#now());
    const lease = entry.connection.lease(entry.startedAt) as LeaseOf<C>;
    const waiters = entry.waiters;
    entry.waiters = [];
    for (const w of waiters) w.resolve(lease);
    entry.connection.ready?.();
    this.#maybeDrain(entry);
    this.#armIdle(entry);
  }

  /** Checks the entry for idling after its idle time (again while it is busy). */
  #armIdle(entry: Entry<H, C>, afterMs?: number): void {
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    const idleMs = entry.idleMs();
    if (idleMs <= 0 || !entry.connection.activity || entry.state !== 'ready') return;
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = undefined;
      this.#checkIdle(entry);
    }, afterMs ?? idleMs);
    // An idle check must not keep the daemon alive.
    entry.idleTimer.unref();
  }

  #checkIdle(entry: Entry<H, C>): void {
    const idleMs = entry.idleMs();
    const activity = entry.connection.activity?.();
    if (
      !activity ||
      idleMs <= 0 ||
      entry.state !== 'ready' ||
      this.#entries.get(entry.key) !== entry
    )
      return;
    if (activity.inFlight > 0 || activity.subscriptions > 0) {
      this.#armIdle(entry);
      return;
    }
    const quiet = this.#now() - activity.lastActiveAt;
    if (quiet < idleMs) {
      this.#armIdle(entry, idleMs - quiet);
      return;
    }
    this.#lost(entry, `stopped after ${Math.round(quiet / 1000)} s without requests`, 'idle');
  }

  /** The connection went away on its own. */
  #lost(entry: Entry<H, C>, reason: string, cause: LostCause): void {
    if (!entry.live()) return;
    entry.state = 'failed';
    this.#remove(entry);
    const holders = entry.holders();
    entry.refs.clear();
    const tell = (): void => {
      for (const h of holders)
        callSafely(this.#warn, `onLost of session ${h.sessionId}`, () => h.onLost(reason, cause));
    };
    // An idle stop is told at once, in the step that removed the key: a request that finds no
    // live key then finds its holder knowing why, and starts it again.
    if (cause === 'idle') {
      tell();
      void this.#closeEntry(entry);
      return;
    }
    // Tell holders after the close, so the process group is gone and the stderr tail complete
    // when they look at it or reconnect.
    void this.#closeEntry(entry).then(tell);
  }

  #track<V>(p: Promise<V>): Promise<V> {
    this.#inFlight.add(p);
    const drop = (): void => {
      this.#inFlight.delete(p);
    };
    p.then(drop, drop);
    return p;
  }

  #remove(entry: Entry<H, C>): void {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
  }

  #cancelDrain(entry: Entry<H, C>): void {
    if (entry.idleTimer !== undefined) {
      clearTimeout(entry.idleTimer);
      entry.idleTimer = undefined;
    }
    entry.drainEndsAt = undefined;
    if (entry.drainTimer !== undefined) {
      clearTimeout(entry.drainTimer);
      entry.drainTimer = undefined;
    }
  }

  /** Ends the entry's connection; idempotent. */
  #closeEntry(entry: Entry<H, C>): Promise<void> {
    this.#cancelDrain(entry);
    entry.closed ??= this.#track(
      entry.connection.close().then(() => {
        if (entry.state !== 'failed') entry.state = 'closed';
      }),
    );
    return entry.closed;
  }

  #retire(entry: Entry<H, C>): void {
    this.#remove(entry);
    void this.#closeEntry(entry);
  }

  #maybeDrain(entry: Entry<H, C>): void {
    if (entry.refs.size > 0 || entry.state !== 'ready') return;
    if (this.#drainDelayMs <= 0) {
      this.#retire(entry);
      return;
    }
    entry.state = 'draining';
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    entry.drainEndsAt = new Date(this.#now() + this.#drainDelayMs);
    entry.drainTimer = setTimeout(() => {
      entry.drainTimer = undefined;
      if (entry.state === 'draining') this.#retire(entry);
    }, this.#drainDelayMs);
    // A pending drain must not keep the daemon alive; close() ends it anyway.
    entry.drainTimer.unref();
  }

  /**
   * Nobody holds it and the config said stop: end it now. An open in progress is cancelled
   * (the connection closes what it opened); a new acquire of the key meanwhile starts a fresh
   * entry instead of joining one that is going away.
   */
  #closeUnwanted(entry: Entry<H, C>): void {
    if (entry.state === 'connecting') {
      this.#remove(entry);
      entry.connection.cancel(new PoolError('released: no session wants it any more'));
    } else if (entry.live()) {
      this.#retire(entry);
    }
  }
}

function abortReasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new PoolError(`acquire aborted: ${String(reason)}`);
}
