// Events: the event map (every name and its payload) and the in-process bus; imports nothing of the gateway's.
export { createEventBus, type EventBus } from './event-bus.js';
export type { AuditEvent, BusEvent, EventMap, EventName, MetricsSnapshot, ResetCounts } from './event-map.js';
