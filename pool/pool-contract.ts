/**
 * The words of the generic pool (pool.ts): what it reads of a ticket and a holder, what a
 * connection type must offer it (PooledConnection), how it lets go (ReleaseReason), and what
 * its stats say. Apart from the lifecycle so a connection type reads only the contract.
 */
export type EntryState = 'connecting' | 'ready' | 'draining' | 'failed' | 'closed';

/**
 * `unauthorized`: the server's OAuth grant is gone (logout, revoked): wait for a login.
 * `idle`: the pool stopped it after its idle time without requests (not a failure).
 */
export type LostCause = 'failed' | 'unauthorized' | 'idle';

/** What a connection is doing, for the pool's idle stop. */
export interface ConnectionActivity {
  /** Agents' requests sent and not yet answered. */
  readonly inFlight: number;
  /** Resource subscriptions the server holds for agents. */
  readonly subscriptions: number;
  /** When the last request was sent or answered (ms since the epoch). */
  readonly lastActiveAt: number;
}

/**
 * Why a session lets go of a connection. The caller must say, because the two end differently
 * when no other session holds it (DESIGN §5 "Processes really stop"):
 * - `config`: the config says it must not run for this session any more (removed, not
 *   admitted for any reason, the old side of a rolling update, a recreate). It closes at once.
 * - `sessionClosed`: the session ended (its agent went away). It drains for the drain delay,
 *   so an agent that comes back gets the very same process.
 */
export type ReleaseReason = 'config' | 'sessionClosed';

export interface ReleaseOptions {
  readonly reason: ReleaseReason;
}

export interface AcquireOptions {
  /**
   * The acquirer stops waiting: aborted before the lease is handed out, the wait ends as a
   * `config` release of the session would (see the module comment).
   */
  readonly signal?: AbortSignal;
}

/** What the lifecycle reads of an admission ticket. */
export interface PoolTicket {
  readonly name: string;
  readonly connectionId: string;
  readonly sessionId: string;
}

/** What the lifecycle needs of a holder: who it is, and how to tell it of a loss. */
export interface PoolHolder {
  readonly sessionId: string;
  onLost(reason: string, cause?: LostCause): void;
}

/** The pool as one of its connections sees it. */
export interface ConnectionHost<H extends PoolHolder> {
  /** The holders now (a copy), for the connection's own news to them. */
  holders(): H[];
  /** Whether the pool serves the connection now (ready or draining). */
  live(): boolean;
  /** It went down on its own: `reason` is what holders hear. Call only while `live()`. */
  lost(reason: string, cause: LostCause): void;
}

/** A connection as the lifecycle drives it. */
export interface PooledConnection<T extends PoolTicket = PoolTicket> {
  /** The server's process, when there is one. */
  readonly pid: number | undefined;
  /**
   * Connects (spawn, handshake, first listing). Called once; rejects with the error every
   * waiter gets, after which the pool calls `close()`.
   */
  open(): Promise<void>;
  /** `open()` resolved and the pool serves it now: waiters have their leases. */
  ready?(): void;
  /** The session of `ticket` holds it (`acquire`); called on every acquire. */
  hold?(sessionId: string, ticket: T): void;
  /** That session let go. */
  unhold?(sessionId: string): void;
  /** Nobody wants it while it opens: `open()` stops and rejects soon after. */
  cancel(reason: Error): void;
  /** Ends it (its process is gone when this resolves). Idempotent; never rejects. */
  close(): Promise<void>;
  /** A holder's view of it, handed to acquirers once it is ready. */
  lease(startedAt: Date): unknown;
  /** What it is doing; absent: the pool never stops it for idling. */
  activity?(): ConnectionActivity;
  /**
   * What the connection adds to its entry's stats, never one of the entry's own fields: a
   * connection's `state` once hid that its entry was draining.
   */
  stats(): object & { readonly [K in keyof ConnectionStats]?: never };
}

export type LeaseOf<C extends PooledConnection> = ReturnType<C['lease']>;

/** One entry of `stats()`, before what the connection type adds. */
export interface ConnectionStats {
  readonly key: string;
  readonly connectionId: string;
  /** The server's name in the config. */
  readonly name: string;
  readonly state: EntryState;
  readonly refs: readonly string[];
  readonly pid: number | undefined;
  /** When the pool began to connect it. */
  readonly createdAt: Date;
  /** When it became ready; undefined while connecting. */
  readonly startedAt: Date | undefined;
  /** While draining: when it closes unless a session acquires it again. */
  readonly drainEndsAt: Date | undefined;
  /** While ready and held: its idle time (absent: it is kept while held). */
  readonly idleStopMs?: number;
}

export interface ConnectionPoolOptions<
  T extends PoolTicket,
  H extends PoolHolder,
  C extends PooledConnection<T>,
> {
  /** The key of the connection a ticket asks for. */
  readonly keyOf: (ticket: T) => string;
  /** Why a ticket must be refused (a PoolError's message), beyond its session; else undefined. */
  readonly refuse?: (ticket: T) => string | undefined;
  /** Makes the connection of a new key; the pool opens it. */
  readonly make: (ticket: T, key: string, host: ConnectionHost<H>) => C;
  /** ms an entry with no refs stays open for a re-acquire. Default 30 000. */
  readonly drainDelayMs?: number;
  /**
   * The idle time a holder's ticket asks for: after that long without requests, requests in
   * flight or subscriptions, a held connection is stopped (`onLost` with cause `idle`). 0 or
   * absent: kept while held. Of several holders the longest wins, and 0 over any.
   */
  readonly idleStopMs?: (ticket: T) => number;
  /** The clock for `createdAt`, `startedAt`, `drainEndsAt` (ms since the epoch). */
  readonly now: () => number;
  /** Problems that fail nothing (callbacks that throw). */
  readonly warn: (message: string) => void;
}
