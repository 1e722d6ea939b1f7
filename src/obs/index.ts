// Observability: logger, event bus and event names.
export { createLogger, REDACT_PATHS, type Logger, type LoggerOptions } from './logger.js';
export { createEventBus, type BusEvent, type EventBus, type EventListener, type EventPayload } from './event-bus.js';
export { EVENT_NAMES, type EventName } from './event-names.js';
export { createRecorder, type Recorder, type TrajectoryRecord, type SessionIndexStart, type UsageRecord } from './recorder.js';
export { createObservability, RESETTABLE_TABLES, FLEET_DEFAULT_SINCE_HOURS, type Observability, type ObservabilityDeps, type ResettableTable } from './observability.js';
export type { HealthSignal, HealthSignalRecorder } from './health-signals.js';
export type { AuditInput, AuditRow } from './audit.js';
export type { DeliveryTrace } from './delivery.js';
export type { DiagnosticEvent } from './diagnostics.js';
export type { ChannelActivity } from './channels.js';
export type { PriceLookup, ModelPrice } from './pricing.js';
export { TRAJECTORY_KIND, SIGNAL_KIND } from './evidence/index.js';
export { assembleIncidentReport, type IncidentReport, type SessionNotFound, type ExplainResult } from './explain/index.js';
export { assembleFleetHealth, type FleetHealthReport } from './fleet/index.js';
