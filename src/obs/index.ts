// Observability: logger, event bus and event names.
export { createLogger, REDACT_PATHS, type Logger, type LoggerOptions } from './logger.js';
export { createEventBus, type BusEvent, type EventBus, type EventListener, type EventPayload } from './event-bus.js';
export { EVENT_NAMES, type EventName } from './event-names.js';
