// Events: the event map (every name and its payload) and the in-process bus; imports nothing of the gateway's.
export { createEventBus, type EventBus, type EventListener } from './event-bus.js';
export {
  EVENT_NAMES,
  type AuditEvent,
  type BusEvent,
  type EventMap,
  type EventName,
  type ResetCounts,
} from './event-map.js';
