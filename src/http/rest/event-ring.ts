// Numbers every bus event for /api/events and keeps the newest in a fixed ring for clients reconnecting with Last-Event-ID.
import type { BusEvent, EventBus } from '../../events/index.js';
import type { EventFeed } from '../../coordination/index.js';

export interface NumberedEvent {
  readonly id: number;
  readonly event: BusEvent;
}

/** Also the /api/events feed of one process (coordination: local); ids are the ring's numbers in decimal. */
export interface EventRing extends EventFeed {
  /** Every event from now on with its id, in order. Returns the function that unsubscribes. */
  subscribe(listener: (id: number, event: BusEvent) => void): () => void;
  /**
   * The held events after `lastEventId`, oldest first. An id the ring cannot place (older than its oldest event,
   * from an earlier process, or not one of ours) gets every event it holds: what was lost before that is gone.
   */
  since(lastEventId: string): NumberedEvent[];
  close(): void;
}

export interface EventRingOptions {
  events: EventBus;
  /** Events kept for replay (gateway.sseReplayEvents); 0 keeps none. */
  capacity: number;
  /**
   * The first id. Starting at the boot time (ms × 1000) makes every id of this process larger than any id an
   * earlier process gave out, so a client reconnecting across a restart is replayed the whole ring.
   */
  firstId: number;
}

/** Ids are decimal integers below 2^53 (16 digits or fewer). */
const EVENT_ID = /^\d{1,16}$/;

export function createEventRing({ events, capacity, firstId }: EventRingOptions): EventRing {
  const slots = new Array<BusEvent | undefined>(capacity);
  const listeners = new Set<(id: number, event: BusEvent) => void>();
  // Events numbered so far: event n has id firstId + n and slot n % capacity, small-integer arithmetic per event where
  // the ids themselves are 16-digit numbers.
  let count = 0;

  // Per event: one slot write, and an id only when a live stream listens; the fan-out is the live stream's own work.
  const unsubscribe = events.subscribe(function numberEvent(event) {
    const index = count;
    count += 1;
    if (capacity > 0) slots[index % capacity] = event;
    if (listeners.size === 0) return;
    const id = firstId + index;
    for (const listener of listeners) listener(id, event);
  });

  function held(from: number): NumberedEvent[] {
    const replay: NumberedEvent[] = [];
    for (let index = from - firstId; index < count; index += 1) {
      const event = slots[index % capacity];
      if (event !== undefined) replay.push({ id: firstId + index, event });
    }
    return replay;
  }

  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    since(lastEventId) {
      const nextId = firstId + count;
      const oldest = Math.max(firstId, nextId - capacity);
      const last = EVENT_ID.test(lastEventId) ? Number(lastEventId) : Number.NaN;
      const isPlaceable = last >= oldest - 1 && last < nextId;
      return held(isPlaceable ? last + 1 : oldest);
    },
    async follow(lastEventId, listener) {
      // Replay and subscription happen in one synchronous step, so no event falls between them or comes twice.
      const missed = lastEventId === undefined ? [] : this.since(lastEventId);
      for (const { id, event } of missed) listener({ id: String(id), event });
      return this.subscribe((id, event) => listener({ id: String(id), event }));
    },
    close() {
      unsubscribe();
      listeners.clear();
    },
  };
}
