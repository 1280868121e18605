/**
 * What one server connection may cost the daemon, and whether it is flooding.
 *
 * One TrafficGuard per connection holds that connection's budgets (token buckets), so a
 * misbehaving server spends only its own budget and never another server's:
 * - messages: notifications and requests from the server (not answers to ours); past the
 *   budget they are dropped and counted (the pool applies this to every transport);
 * - stdout lines (stdio): past the budget the transport stops reading for a while, so the
 *   server's own writes block and the daemon does no work for it meanwhile; a line that
 *   answered a request of ours still waiting for it gives its token back (answers are bounded
 *   by what the agents asked, so a busy agent is never throttled as a flood);
 * - re-lists after list_changed: past the budget the next re-list waits (changes that arrive
 *   meanwhile coalesce into it), so the registry and the agents see a few lists per second;
 * - stdout lines that are not JSON-RPC: each is counted; a few per interval are noted in the
 *   stderr tail (with how many were left out), the rest cost a counter increment;
 * - bytes of stdout lines over the message limit (stdio), which are read only to be dropped
 *   (and probed for their id): past their byte budget the transport stops reading for a while,
 *   like past the line budget, so even one endless line costs a bounded amount of work.
 *   `onOversized` listeners hear of each such line once it ended.
 *
 * Guarantees: a connection is *flooding* from the first time it goes over a limit until a
 * whole `reportIntervalMs` passes without that; `report()` then describes the last interval
 * (what went over, by how much) and `onChange` listeners hear of it at most once per interval
 * plus once when it starts and once when it ends. `close()` stops the one timer.
 */
import { sizeText } from '../api/index.js';
import { TokenBucket } from './token-bucket.js';

export interface TrafficLimits {
  readonly messagesPerSecond: number;
  readonly messageBurst: number;
  readonly linesPerSecond: number;
  readonly lineBurst: number;
  readonly relistsPerSecond: number;
  readonly relistBurst: number;
  /** Non-JSON-RPC stdout lines per interval that are tolerated (a banner, stray logs). */
  readonly garbagePerInterval: number;
  /** Non-JSON-RPC stdout lines per interval that are noted in the stderr tail. */
  readonly garbageNotesPerInterval: number;
  /** Bytes of stdout lines over the message limit, read and dropped. */
  readonly droppedBytesPerSecond: number;
  readonly droppedBytesBurst: number;
  readonly reportIntervalMs: number;
}

/**
 * Generous for servers that behave (a progress bar, a burst of tool additions at start), two
 * orders of magnitude under what a flooding server sends.
 */
export const DEFAULT_TRAFFIC_LIMITS: TrafficLimits = {
  messagesPerSecond: 200,
  messageBurst: 500,
  linesPerSecond: 1000,
  lineBurst: 2000,
  relistsPerSecond: 2,
  relistBurst: 5,
  garbagePerInterval: 100,
  garbageNotesPerInterval: 5,
  // An agent may ask for a few too large things at once (a 12 MB file read is a 23 MiB answer
  // from server-filesystem); a server sending them without end is read at 8 MiB/s, not at the
  // pipe's speed: the probe's cost then stays under a sixth of a core (text, most of a large
  // message, is skipped with indexOf; a long array of numbers is its slowest input).
  droppedBytesPerSecond: 8 * 1024 * 1024,
  droppedBytesBurst: 128 * 1024 * 1024,
  reportIntervalMs: 10_000,
};

/** What a connection did over a limit: the words of the Warning event. */
export type FloodKind = 'messages' | 'garbage' | 'output' | 'oversized' | 'list changes';

/** A stdout line over the message limit that was dropped: what it was, and how long. */
export interface OversizedLine {
  /** `answer`: its request failed with a size error; the others were dropped. */
  readonly kind: 'answer' | 'request' | 'notification' | 'unknown';
  readonly bytes: number;
  readonly limitBytes: number;
}

export interface FloodReport {
  /** Which limits it went over (stable while its behaviour is: the event's message uses it). */
  readonly kinds: readonly FloodKind[];
  /** What it did over the last interval, with numbers (for the Ready condition's message). */
  readonly note: string;
}

interface Counts {
  dropped: number;
  garbage: number;
  throttledMs: number;
  /** Reading paused for the dropped-bytes budget. */
  oversizedMs: number;
  deferred: number;
}

const zero = (): Counts => ({
  dropped: 0,
  garbage: 0,
  throttledMs: 0,
  oversizedMs: 0,
  deferred: 0,
});

export class TrafficGuard {
  readonly #limits: TrafficLimits;
  readonly #now: () => number;
  readonly #messages: TokenBucket;
  readonly #lines: TokenBucket;
  readonly #relists: TokenBucket;
  readonly #dropped: TokenBucket;
  readonly #listeners = new Set<() => void>();
  readonly #oversizedListeners = new Set<(line: OversizedLine) => void>();
  #counts = zero();
  #windowStart: number;
  #report: FloodReport | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Garbage lines left out of the stderr tail since the last one noted. */
  #unnoted = 0;

  constructor(limits: TrafficLimits = DEFAULT_TRAFFIC_LIMITS, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
    this.#messages = new TokenBucket(limits.messagesPerSecond, limits.messageBurst, now);
    this.#lines = new TokenBucket(limits.linesPerSecond, limits.lineBurst, now);
    this.#relists = new TokenBucket(limits.relistsPerSecond, limits.relistBurst, now);
    this.#dropped = new TokenBucket(limits.droppedBytesPerSecond, limits.droppedBytesBurst, now);
    this.#windowStart = now();
  }

  /** A notification or request from the server: true to deliver it, false to drop it. */
  admitMessage(): boolean {
    if (this.#messages.take()) return true;
    this.#roll();
    this.#counts.dropped += 1;
    this.#overLimit();
    return false;
  }

  /** stdio: ms to wait before the next stdout line may be read; 0 takes it now. */
  takeLine(): number {
    const wait = this.#lines.msUntilToken();
    if (wait === 0) this.#lines.take();
    return wait;
  }

  /**
   * stdio: `bytes` of a line over the message limit were read and dropped. Returns the ms to
   * wait before reading on (0 within the budget; pass the wait to `throttled(ms, 'oversized')`).
   */
  dropBytes(bytes: number): number {
    this.#dropped.spend(bytes);
    return this.#dropped.msUntilToken();
  }

  /** stdio: a line over the message limit was read (and dropped); listeners hear of it. */
  oversized(line: OversizedLine): void {
    for (const l of [...this.#oversizedListeners]) {
      try {
        l(line);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /** Hears of every line over the message limit. Returns an unsubscribe. */
  onOversized(listener: (line: OversizedLine) => void): () => void {
    this.#oversizedListeners.add(listener);
    return () => this.#oversizedListeners.delete(listener);
  }

  /**
   * stdio: the line just read answered a request of ours that was waiting for it, so it does
   * not count (each such request refunds at most once: the caller knows it was pending).
   */
  refundLine(): void {
    this.#lines.give();
  }

  /** stdio: reading was paused for `ms` because the line (or dropped-bytes) budget ran out. */
  throttled(ms: number, budget: 'lines' | 'oversized' = 'lines'): void {
    this.#roll();
    if (budget === 'oversized') this.#counts.oversizedMs += ms;
    else this.#counts.throttledMs += ms;
    this.#overLimit();
  }

  /**
   * stdio: a stdout line that is not JSON-RPC. Returns the note for the stderr tail, or
   * undefined when this one is only counted.
   */
  garbage(describe: () => string): string | undefined {
    this.#roll();
    this.#counts.garbage += 1;
    if (this.#counts.garbage > this.#limits.garbagePerInterval) this.#overLimit();
    if (this.#counts.garbage > this.#limits.garbageNotesPerInterval) {
      this.#unnoted += 1;
      return undefined;
    }
    const more = this.#unnoted > 0 ? ` (${this.#unnoted} more left out before it)` : '';
    this.#unnoted = 0;
    return `[mcpctl] ignored a stdout line that is not JSON-RPC: ${describe()}${more}`;
  }

  /** ms to wait before the next re-list may run; 0 takes it now (a wait counts as over). */
  takeRelist(): number {
    const wait = this.#relists.msUntilToken();
    if (wait === 0) {
      this.#relists.take();
      return 0;
    }
    this.#roll();
    this.#counts.deferred += 1;
    this.#overLimit();
    return wait;
  }

  /** Undefined while the connection behaves. */
  report(): FloodReport | undefined {
    return this.#report;
  }

  /** Hears when `report()` changes (rate-limited: see the guarantees). Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
    this.#oversizedListeners.clear();
  }

  /** While calm, counts cover the current interval only: old strays never add up to a flood. */
  #roll(): void {
    if (this.#report !== undefined) return;
    const t = this.#now();
    if (t - this.#windowStart >= this.#limits.reportIntervalMs) {
      this.#counts = zero();
      this.#windowStart = t;
    }
  }

  #overLimit(): void {
    if (this.#report !== undefined || this.#closed) return;
    this.#report = this.#describe(this.#counts, false);
    this.#arm();
    this.#emit();
  }

  #arm(): void {
    this.#timer = setTimeout(() => this.#tick(), this.#limits.reportIntervalMs);
    // A flooding server must not keep the daemon alive; close() ends the timer anyway.
    this.#timer.unref();
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#closed) return;
    const counts = this.#counts;
    this.#counts = zero();
    this.#windowStart = this.#now();
    const next = this.#isOver(counts) ? this.#describe(counts, true) : undefined;
    this.#report = next;
    if (next !== undefined) this.#arm();
    this.#emit();
  }

  #isOver(c: Counts): boolean {
    return (
      c.dropped > 0 ||
      c.throttledMs > 0 ||
      c.oversizedMs > 0 ||
      c.deferred > 0 ||
      c.garbage > this.#limits.garbagePerInterval
    );
  }

  /**
   * The report of an interval; `interval` false for the one made when a flood starts, whose
   * numbers would only be its first moments' (so it names what, not how much).
   */
  #describe(c: Counts, interval: boolean): FloodReport {
    const l = this.#limits;
    const n = (count: number, word: string) => (interval ? `${plural(count, word)}` : `${word}s`);
    const kinds: FloodKind[] = [];
    const parts: string[] = [];
    if (c.dropped > 0) {
      kinds.push('messages');
      parts.push(`${n(c.dropped, 'notification')} over ${l.messagesPerSecond}/s dropped`);
    }
    if (c.garbage > l.garbagePerInterval) {
      kinds.push('garbage');
      const lines = interval
        ? plural(c.garbage, 'stdout line')
        : `more than ${l.garbagePerInterval} stdout lines`;
      parts.push(`${lines} that are not JSON-RPC`);
    }
    if (c.throttledMs > 0) {
      kinds.push('output');
      const paused = interval ? ` ${(c.throttledMs / 1000).toFixed(1)} s` : '';
      parts.push(`output over ${l.linesPerSecond} lines/s, reading paused${paused}`);
    }
    if (c.oversizedMs > 0) {
      kinds.push('oversized');
      const paused = interval ? ` ${(c.oversizedMs / 1000).toFixed(1)} s` : '';
      parts.push(
        `messages over the size limit past ${sizeText(l.droppedBytesPerSecond)}/s, reading paused${paused}`,
      );
    }
    if (c.deferred > 0) {
      kinds.push('list changes');
      const waited = interval ? ` (${c.deferred} waited)` : '';
      parts.push(`list changes over ${l.relistsPerSecond}/s coalesced${waited}`);
    }
    const when = interval ? `last ${l.reportIntervalMs / 1000} s` : 'just started';
    return { kinds, note: `flooding (${when}): ${parts.join('; ')}` };
  }

  #emit(): void {
    for (const l of [...this.#listeners]) {
      try {
        l();
      } catch {
        // A listener's failure is its own; the guard keeps counting.
      }
    }
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
