/**
 * Event recorder: Kubernetes-style events with de-duplication.
 *
 * Guarantees: an event equal in type, reason, object and message to an earlier one bumps that
 * one's `count` and `lastTimestamp` instead of adding a row; at most `capacity` events are kept
 * (oldest dropped); listeners see every recorded occurrence.
 */
import type { EventReason, EventSink, EventType } from '../reconcilers/events.js';

export interface McpEvent {
  type: EventType;
  reason: EventReason;
  message: string;
  involvedObject: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
}

export type EventListener = (event: McpEvent) => void;

export class EventRecorder implements EventSink {
  readonly #events: McpEvent[] = [];
  /** Same-event lookup without scanning the list on every reconcile. */
  readonly #byKey = new Map<string, McpEvent>();
  readonly #listeners = new Set<EventListener>();

  constructor(
    private readonly capacity = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  record(type: EventType, reason: EventReason, object: string, message: string): void {
    const at = new Date(this.now()).toISOString();
    const key = keyOf({ type, reason, involvedObject: object, message });
    const same = this.#byKey.get(key);
    let event: McpEvent;
    if (same) {
      same.count += 1;
      same.lastTimestamp = at;
      event = same;
    } else {
      event = {
        type,
        reason,
        message,
        involvedObject: object,
        count: 1,
        firstTimestamp: at,
        lastTimestamp: at,
      };
      this.#events.push(event);
      this.#byKey.set(key, event);
      if (this.#events.length > this.capacity) {
        const old = this.#events.shift();
        if (old) this.#byKey.delete(keyOf(old));
      }
    }
    for (const l of this.#listeners) l({ ...event });
  }

  list(filter?: (e: McpEvent) => boolean): McpEvent[] {
    return this.#events.filter((e) => !filter || filter(e)).map((e) => ({ ...e }));
  }

  onEvent(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

function keyOf(e: Pick<McpEvent, 'type' | 'reason' | 'involvedObject' | 'message'>): string {
  return `${e.type}\u0000${e.reason}\u0000${e.involvedObject}\u0000${e.message}`;
}
