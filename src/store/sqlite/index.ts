// The SQLite implementations of the storage ports.
export { createSqliteAuditPort } from './audit.js';
export { createSqliteEvidencePort } from './evidence.js';
export { createSqliteObsPort } from './obs-counters.js';
