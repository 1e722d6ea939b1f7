// Observability: logger, recorder, evidence reports, audit, health and the obs.* methods.
export { createLogger, isLogLevel, LOG_LEVELS, type Logger, type LogLevel } from './logger.js';
export { isLogFormat, prettyDestination, type LogFormat } from './pretty-destination.js';
export { createRecorder, type Recorder, type SessionIndexStart, type TrajectoryRecord } from './recorder.js';
export { createObsModule, type ObsModule } from './module.js';
export { obsMethods } from './methods.js';
export { dashboardObsMethods } from './dashboard-methods.js';
export { createObservability, type Observability } from './observability.js';
export type { HealthSignal, HealthSignalRecorder } from './health-signals.js';
export { recordRunsOrphaned } from './health-feed.js';
export type { AuditInput, AuditRow } from './audit.js';
export type { DeliveryRecorder, DeliveryTrace, DeliveryTracer } from './delivery.js';
export type { ChannelActivity } from './channels.js';
export { TRAJECTORY_KIND, SIGNAL_KIND, VOICE_ERROR_KINDS, VOICE_SOURCES } from './evidence/kinds.js';
export { isDegradedEnding } from './evidence/endings.js';
export { RETENTION_BATCH_ROWS, RETENTION_LEASE, RETENTION_RENEW_BATCHES } from './retention.js';
export { decodeTimeCursor, nextTimeCursor } from './time-cursor.js';
