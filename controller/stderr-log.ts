/**
 * A server's stderr as `mcpctl logs` reads it, either kind: what is kept now, and a follower
 * that hands on each new line once (`logs -f`).
 *
 * Guarantees:
 * - Every line is scrubbed of the server's secrets (ServerRecord.scrub) before it leaves here.
 * - Memory is the pool's: a follower holds a cursor (a lease and a sequence number), never
 *   lines; what a flood pushed out of the kept tail before it was read is counted (`skipped`),
 *   not kept.
 * - A follower sees each whole line of each process once, in order, across restarts: the last
 *   lines of a process that ended are read before the next one's; a start that failed before
 *   any connection (its lines are only on the record) is handed on once.
 * - A pending partial line is shown by `snapshot` (it may explain a hang) but followed only
 *   once it ends.
 */
import type { LinesSince } from '../pool/types.js';
import type { ServedLease, ServerRecord } from '../reconcilers/server-record.js';

/** The part of a record the log reads (either kind's ServerRecord). */
type LogRecord = Pick<
  ServerRecord<unknown, ServedLease>,
  'live' | 'lastStderr' | 'scrub' | 'everConnected'
>;

/** What is kept of a server's stderr now. */
export interface StderrSnapshot {
  readonly lines: readonly string[];
  /** A process runs for it now. */
  readonly running: boolean;
  /** It has run (or tried to) in this session: false means there can be nothing to show. */
  readonly ran: boolean;
  /** It runs remotely (a URL): there is no stderr at all. */
  readonly remote: boolean;
}

export function stderrSnapshot(rec: LogRecord | undefined): StderrSnapshot {
  if (!rec) return { lines: [], running: false, ran: false, remote: false };
  const live = rec.live;
  if (live) {
    const remote = live.lease.stderrSince === undefined;
    return {
      lines: live.lease.stderrTail().map(rec.scrub),
      running: true,
      ran: true,
      remote,
    };
  }
  return {
    lines: rec.lastStderr,
    running: false,
    ran: rec.everConnected || rec.lastStderr.length > 0,
    remote: false,
  };
}

/** New lines since the last poll. */
export interface StderrBatch {
  readonly lines: readonly string[];
  /** Lines that were pushed out of the kept tail before they were read. */
  readonly skipped: number;
  /** A new process started for the server (its pid), before `lines` of it. */
  readonly restarted?: number | undefined;
}

export class StderrFollower {
  readonly #record: () => LogRecord | undefined;
  #lease: ServedLease | undefined;
  #next = 0;
  /** The record's lastStderr last seen (a failed start's lines arrive only there). */
  #seenLast: readonly string[] | undefined;

  /** `record` is read at each poll: the record may be made or replaced meanwhile. */
  constructor(record: () => LogRecord | undefined) {
    this.#record = record;
    const rec = record();
    this.#seenLast = rec?.lastStderr;
  }

  /** The whole lines kept now, and the cursor set after them (the first answer of `-f`). */
  start(): readonly string[] {
    const rec = this.#record();
    if (!rec) return [];
    this.#seenLast = rec.lastStderr;
    const lease = rec.live?.lease;
    if (!lease) return rec.lastStderr;
    this.#lease = lease;
    const got = sinceOf(lease, 0);
    this.#next = got.next;
    return got.lines.map(rec.scrub);
  }

  /** What was written since the last call; at most what the pool keeps, however fast it came. */
  poll(): StderrBatch {
    const rec = this.#record();
    if (!rec) return { lines: [], skipped: 0 };
    const lines: string[] = [];
    let skipped = 0;
    let restarted: number | undefined;
    const current = rec.live?.lease;
    if (this.#lease && current !== this.#lease) {
      // The followed process ended (or was replaced): its last lines first.
      const rest = sinceOf(this.#lease, this.#next);
      lines.push(...rest.lines.map(rec.scrub));
      skipped += rest.skipped;
      this.#lease = undefined;
      // Its loss copied its tail onto the record: lines already handed on.
      this.#seenLast = rec.lastStderr;
    }
    if (!current && rec.lastStderr !== this.#seenLast) {
      // A start that failed before any connection: its lines live on the record only.
      this.#seenLast = rec.lastStderr;
      lines.push(...rec.lastStderr);
    }
    if (current && current !== this.#lease) {
      this.#lease = current;
      this.#next = 0;
      restarted = current.pid;
    }
    if (this.#lease) {
      const got = sinceOf(this.#lease, this.#next);
      this.#next = got.next;
      lines.push(...got.lines.map(rec.scrub));
      skipped += got.skipped;
    }
    return { lines, skipped, ...(restarted !== undefined ? { restarted } : {}) };
  }
}

function sinceOf(lease: ServedLease, seq: number): LinesSince {
  return lease.stderrSince?.(seq) ?? { lines: [], skipped: 0, next: seq };
}
