// The in-process event bus: typed payloads per name, fan-out to subscribers queued off the emitter's stack.
import type { Logger } from 'pino';
import type { BusEvent, EventMap, EventName } from './event-map.js';

export type { BusEvent } from './event-map.js';

export type EventListener = (event: BusEvent) => void;

export interface EventBus {
  /** Queues the event for every subscriber; listeners run on a later microtask, never inside emit. */
  emit<K extends EventName>(name: K, payload: EventMap[K]): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: EventListener): () => void;
  /** The newest events, oldest first (the /api/activity feed), at most `limit`. */
  recent(limit: number): BusEvent[];
}

export interface EventBusDeps {
  now: () => number;
  log: Logger;
  /** How many recent events are kept for /api/activity. */
  historySize?: number;
}

export function createEventBus({ now, log, historySize = 500 }: EventBusDeps): EventBus {
  const listeners = new Set<EventListener>();
  // A ring of the newest events: `next` is where the next one goes (the oldest once the ring is full).
  const history: BusEvent[] = [];
  let next = 0;
  let queue: BusEvent[] = [];

  function drain(): void {
    const events = queue;
    queue = [];
    for (const event of events) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          // One failing subscriber must not stop the others.
          log.error({ err: error, event: event.name }, 'event listener failed');
        }
      }
    }
  }

  return {
    emit(name, payload) {
      // The union cannot be narrowed from a generic name; the signature already ties payload to name.
      const event = { name, ts: now(), payload } as BusEvent;
      if (historySize > 0) {
        history[next] = event;
        next = (next + 1) % historySize;
      }
      if (listeners.size === 0) return;
      if (queue.length === 0) queueMicrotask(drain);
      queue.push(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    recent(limit) {
      const ordered = history.length < historySize ? history : [...history.slice(next), ...history.slice(0, next)];
      return ordered.slice(-limit);
    },
  };
}
