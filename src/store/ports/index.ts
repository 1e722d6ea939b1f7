// The storage ports: one async interface per capability, implemented by store/sqlite (and later other backends).
export type { AuditFilter, AuditPort, AuditRow } from './audit.js';
export type {
  EvidencePort, EvidenceWrite, SessionIndexEnd, SessionIndexStart, StoredTrajectory, TrajectoryRecord, UsageRecord,
} from './evidence.js';
export type {
  CacheGroup, ChannelActivityRow, ChannelTouch, UsageGroup, DeliveryRow, DiagnosticRow, HealthSignalRow, ObsCounterTable, ObsPort, ObsWrite, StoredDelivery, StoredDiagnostic,
} from './obs.js';
