// The shared store layer: one Kysely implementation of each CRUD port for both dialects (store/sqlite and store/postgres
// hand it a StoreDb over their connection), and what both backends' hand-written memory and session SQL shares: row
// mapping, the WHERE builder, the reads that rank nothing. The shared migrations have their own door (migrations/).
export type { StoreDb } from './store-db.js';
export { EVIDENCE_SOURCES, EVIDENCE_TIME_COLUMNS, type Tables } from './tables.js';
export { createApprovalPort } from './approvals.js';
export { createAuditPort } from './audit.js';
export { createA2aTaskPort } from './a2a-tasks.js';
export { createBudgetUsagePort } from './budgets.js';
export { obsCells, sessionStartCells, usageCells, type Cell } from './batch-cells.js';
export { createEvidenceReads } from './evidence-reads.js';
export { compileTraceWhere } from './evidence-window.js';
export { encodeSteps } from './turn-records.js';
export { createGraphPort } from './graphs.js';
export { createJobPort } from './jobs.js';
export { createLearningPort } from './learning.js';
export { createMediaPort } from './media.js';
export { chunks, createMemoryReads, type SqlRunner } from './memory-reads.js';
export { createEmbeddingCache, type EmbeddingCacheSettings, type VectorCodec } from './memory-embedding-cache.js';
export {
  insertedEntry,
  LAST_USED,
  MEMORY_INSERT_COLUMNS,
  memoryInsertValues,
  type MemoryInsertValues,
  sweepOutcome,
  type SweepOutcome,
} from './memory-rows.js';
export { createObsReads } from './obs-reads.js';
export { createSharedPorts } from './ports.js';
export {
  messageRowValues,
  storedMetadata,
  toSessionRecord,
  type MessageRowValues,
  type SessionRow,
} from './session-rows.js';
export { searchTerms, toSearchHit, type SearchRow } from './session-search.js';
export { createSessionQueries } from './sessions.js';
export { createSessionLifecycleQueries } from './session-lifecycle.js';
export { createResponsePort } from './responses.js';
export { buildWhere, memoryFilterConditions, Params, type Condition, type SqlScalar } from './sql-where.js';
export { createRunPort } from './runs.js';
export { createTokenPort } from './tokens.js';
