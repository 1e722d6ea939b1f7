// The storage ports: one async interface per capability, implemented by store/sqlite (and later other backends).
export type { AuditFilter, AuditPort, AuditRow } from './audit.js';
export type {
  AgentTrajectory, AgentUsageGroup, Capped, EvidencePort, EvidenceRun, EvidenceWrite, SessionIndexEnd, SessionIndexRow, SessionIndexStart, StoredHealthSignal,
  StoredTrajectory, TraceCondition, TraceFilter, TraceFlagField, TraceTextField, TrajectoryRecord, UsageRecord, Window,
} from './evidence.js';
export type {
  CacheGroup, ChannelActivityRow, ChannelTouch, UsageGroup, DeliveryRow, DiagnosticRow, HealthSignalRow, ObsCounterTable, ObsPort, ObsWrite, StoredDelivery, StoredDiagnostic,
} from './obs.js';
