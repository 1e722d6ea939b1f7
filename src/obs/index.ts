// Observability: logger, recorder, evidence reports, audit, health and the obs.* methods.
export { createLogger, REDACT_PATHS, type Logger, type LoggerOptions } from './logger.js';
export {
  createRecorder,
  type Recorder,
  type TrajectoryRecord,
  type SessionIndexStart,
  type UsageRecord,
} from './recorder.js';
export { createObsModule, type ObsModule } from './module.js';
export { obsMethods } from './methods.js';
export {
  createObservability,
  RESETTABLE_TABLES,
  FLEET_DEFAULT_SINCE_HOURS,
  type Observability,
  type ObservabilityDeps,
  type ResettableTable,
} from './observability.js';
export type { HealthSignal, HealthSignalRecorder } from './health-signals.js';
export { HEALTH_CODES, recordBootPosture, recordRunsOrphaned, type PostureEntry } from './health-feed.js';
export type { AuditInput, AuditRow } from './audit.js';
export type { DeliveryRecorder, DeliveryReply, DeliveryTrace } from './delivery.js';
export type { DiagnosticEvent } from './diagnostics.js';
export type { ChannelActivity } from './channels.js';
export type { PriceLookup, ModelPrice } from './pricing.js';
export { TRAJECTORY_KIND, SIGNAL_KIND, VOICE_ERROR_KINDS, VOICE_SOURCES } from './evidence/index.js';
export { isDegradedEnding } from './evidence/index.js';
export {
  assembleIncidentReport,
  type IncidentReport,
  type SessionNotFound,
  type ExplainResult,
} from './explain/index.js';
export { assembleFleetHealth, type FleetHealthReport } from './fleet/index.js';
export { AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT } from './audit.js';
export { DELIVERY_DEFAULT_LIMIT, DELIVERY_MAX_LIMIT } from './delivery.js';
export { DIAGNOSTICS_DEFAULT_LIMIT, DIAGNOSTICS_MAX_LIMIT } from './diagnostics.js';
export { STALE_THRESHOLD_MS } from './channels.js';
export { TRACE_SEARCH_DEFAULT_LIMIT, TRACE_SEARCH_MAX_LIMIT } from './trace-search.js';
export { WHERE_MAX_LENGTH } from './where-filter.js';
export {
  RETENTION_BATCH_ROWS,
  RETENTION_FIRST_SWEEP_MS,
  RETENTION_LEASE,
  RETENTION_RENEW_BATCHES,
  RETENTION_SWEEP_INTERVAL_MS,
  type RetentionLeases,
  type RetentionSweep,
  type StorageReport,
} from './retention.js';
