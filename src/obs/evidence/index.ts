// Evidence for the reports: record kinds and shapes, defensive readers, and the loaders over the EvidencePort (see README.md).
export {
  TRAJECTORY_KIND,
  SIGNAL_KIND,
  SEVERITIES,
  CONTENT_HEURISTIC,
  VOICE_ERROR_KINDS,
  VOICE_SOURCES,
  type TrajectoryKind,
  type SignalKind,
  type Severity,
} from './kinds.js';
export type {
  FleetEvidence,
  HealthSignalEvidence,
  RunEvidence,
  SessionEvidence,
  SessionIndexEvidence,
  TrajectoryEvidence,
  UsageEvidence,
} from './records.js';
export {
  createSessionLoader,
  SYNTHETIC_ROOT_PREFIX,
  MAX_SESSION_TRAJECTORY_ROWS,
  type SessionLoader,
  type SessionReference,
} from './session-loader.js';
export { createFleetLoader, FLEET_ROW_CAPS, type FleetLoader } from './fleet-loader.js';
export { HEALTHY_END_REASONS, isDegradedEnding } from './endings.js';
