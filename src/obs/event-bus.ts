// The in-process event bus: typed names, small counts-and-ids payloads, synchronous fan-out to subscribers.
import type { Logger } from 'pino';
import type { EventName } from './event-names.js';

export type EventPayload = Record<string, string | number | boolean | null | undefined | readonly string[]>;

export interface BusEvent {
  name: EventName;
  ts: number;
  payload: EventPayload;
}

export type EventListener = (event: BusEvent) => void;

export interface EventBus {
  emit(name: EventName, payload?: EventPayload): void;
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
  const history: BusEvent[] = [];
  return {
    emit(name, payload = {}) {
      const event: BusEvent = { name, ts: now(), payload };
      history.push(event);
      if (history.length > historySize) history.shift();
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          // One failing subscriber must not stop the others or the emitter.
          log.error({ err: error, event: name }, 'event listener failed');
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    recent(limit) {
      return history.slice(-limit);
    },
  };
}
