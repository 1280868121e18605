/**
 * Resumability of the HTTP endpoint's SSE streams: the SDK's `EventStore`, one per MCP session,
 * all drawing on one bounded window (`ReplayWindow`).
 *
 * Guarantees:
 * - Every event the transport sends on a stream gets an id `<stream>:<n>`, `n` rising per
 *   session; `replayEventsAfter` sends, in order, exactly the kept events of that stream after
 *   the given one, once each, and none of another stream or another session. Priming events
 *   (empty, only there to hand the client an id) are never replayed.
 * - An id names a stream only of the session it is asked in: another session's or a made-up
 *   stream is unknown (the transport answers 400), so one agent can never read another's events.
 * - Memory is bounded: the window keeps at most `maxBytes` of messages and `maxEvents` events of
 *   all sessions together, dropping the oldest first; a session remembers at most
 *   `maxStreams` streams (the oldest forgotten first, pinned ones never); `close()` lets go of
 *   all of a session's.
 *   A client that comes back after its events were dropped gets what is still kept, and the
 *   gap is reported (`onGap`), never papered over.
 */
import type {
  EventStore,
  EventId,
  StreamId,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface Kept {
  readonly seq: number;
  readonly id: EventId;
  /** Undefined once dropped (the entry may wait in the window's queue a little longer). */
  message: JSONRPCMessage | undefined;
  readonly bytes: number;
  readonly log: StreamLog;
}

interface StreamLog {
  readonly stream: StreamId;
  readonly events: Kept[];
  /** The highest seq dropped from this stream while the session was open. */
  droppedUpTo: number;
}

/** The one window all sessions' events share. */
export class ReplayWindow {
  readonly #maxBytes: number;
  readonly #maxEvents: number;
  #queue: Kept[] = [];
  #head = 0;
  #bytes = 0;

  constructor(limits: { readonly maxBytes: number; readonly maxEvents: number }) {
    this.#maxBytes = limits.maxBytes;
    this.#maxEvents = limits.maxEvents;
  }

  /** Bytes of messages kept now (for tests and the log). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Events kept now, all sessions. */
  get events(): number {
    let n = 0;
    for (let i = this.#head; i < this.#queue.length; i += 1)
      if (this.#queue[i]?.message !== undefined) n += 1;
    return n;
  }

  add(kept: Kept): void {
    this.#queue.push(kept);
    kept.log.events.push(kept);
    this.#bytes += kept.bytes;
    while (this.#bytes > this.#maxBytes || this.#queue.length - this.#head > this.#maxEvents) {
      const oldest = this.#queue[this.#head];
      this.#head += 1;
      if (oldest) this.drop(oldest);
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Lets go of one event (idempotent). */
  drop(kept: Kept): void {
    if (kept.message === undefined) return;
    kept.message = undefined;
    this.#bytes -= kept.bytes;
    const { events } = kept.log;
    // Events leave a stream oldest first, so this is nearly always the first one.
    const at = events.indexOf(kept);
    if (at >= 0) events.splice(at, 1);
    kept.log.droppedUpTo = Math.max(kept.log.droppedUpTo, kept.seq);
  }
}

/** Priming events carry no message, only an id for the client to come back with. */
const isPriming = (message: JSONRPCMessage): boolean => Object.keys(message).length === 0;

export interface ReplayStoreOptions {
  /** Streams one session remembers (the oldest forgotten first; pinned ones never). */
  readonly maxStreams: number;
  /** Streams never forgotten while the session lasts (the GET stream). */
  readonly pinned?: readonly StreamId[];
  /** A client came back after events it had not seen were dropped. */
  readonly onGap?: (stream: StreamId, missedUpTo: number) => void;
}

/** One MCP session's event store. */
export class ReplayStore implements EventStore {
  readonly #window: ReplayWindow;
  readonly #options: ReplayStoreOptions;
  /** Insertion order is age: re-inserted on use, so the first is the least recently used. */
  readonly #streams = new Map<StreamId, StreamLog>();
  #seq = 0;
  #closed = false;

  constructor(window: ReplayWindow, options: ReplayStoreOptions) {
    this.#window = window;
    this.#options = options;
  }

  storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    return Promise.resolve(this.#store(stream, message));
  }

  /**
   * A mark on `stream` now (an empty event, never replayed): replaying after it sends exactly
   * what is stored from now on. Synchronous, so nothing can be stored between a decision and it.
   */
  mark(stream: StreamId): EventId {
    return this.#store(stream, {} as JSONRPCMessage);
  }

  #store(stream: StreamId, message: JSONRPCMessage): EventId {
    this.#seq += 1;
    const id = `${stream}:${this.#seq}`;
    if (this.#closed) return id;
    const log = this.#logOf(stream);
    // The bytes the transport will write for it, near enough (UTF-16 units of the JSON).
    const bytes = isPriming(message) ? 0 : JSON.stringify(message).length;
    this.#window.add({ seq: this.#seq, id, message, bytes, log });
    return id;
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const parsed = parseId(eventId);
    return Promise.resolve(parsed && this.#streams.has(parsed.stream) ? parsed.stream : undefined);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const parsed = parseId(lastEventId);
    const log = parsed ? this.#streams.get(parsed.stream) : undefined;
    if (!parsed || !log) return '';
    if (log.droppedUpTo > parsed.seq) this.#options.onGap?.(log.stream, log.droppedUpTo);
    // A copy: sending may store (and so drop) events meanwhile.
    for (const kept of [...log.events]) {
      const message = kept.message;
      if (kept.seq <= parsed.seq || message === undefined || isPriming(message)) continue;
      await send(kept.id, message);
    }
    return log.stream;
  }

  /** Lets go of every event of this session. */
  close(): void {
    this.#closed = true;
    for (const log of this.#streams.values()) this.#forget(log);
    this.#streams.clear();
  }

  #logOf(stream: StreamId): StreamLog {
    let log = this.#streams.get(stream);
    if (log) {
      this.#streams.delete(stream);
      this.#streams.set(stream, log);
      return log;
    }
    log = { stream, events: [], droppedUpTo: 0 };
    this.#streams.set(stream, log);
    if (this.#streams.size > this.#options.maxStreams) {
      const pinned = this.#options.pinned ?? [];
      for (const oldest of this.#streams.values()) {
        if (pinned.includes(oldest.stream)) continue;
        this.#streams.delete(oldest.stream);
        this.#forget(oldest);
        break;
      }
    }
    return log;
  }

  #forget(log: StreamLog): void {
    for (const kept of [...log.events]) this.#window.drop(kept);
  }
}

function parseId(eventId: EventId): { stream: StreamId; seq: number } | undefined {
  const at = eventId.lastIndexOf(':');
  if (at <= 0) return undefined;
  const seqText = eventId.slice(at + 1);
  const seq = Number(seqText);
  if (!/^\d{1,15}$/.test(seqText) || !Number.isSafeInteger(seq)) return undefined;
  return { stream: eventId.slice(0, at), seq };
}
