// The SQLite backend: one file in WAL mode, its migrations, and the SQLite implementations of the storage ports.
export { openDatabase, applyMigrations, type SqliteDatabase, type OpenDatabaseOptions } from './database.js';
export { MIGRATIONS, type Migration } from './migrations.js';
export { createSqliteSessionPort, type SqliteSessionPort, type SqliteSessionPortOptions } from './session-store.js';
export { DEFAULT_SESSION_WRITE_LIMITS, type SessionWriteLimits } from './session-write-limits.js';
export { toFtsQuery } from './session-search.js';
export { createSqliteRunPort } from './run-store.js';
export { createSqliteApprovalPort } from './approval-store.js';
export { createSqliteJobPort } from './job-store.js';
export { createSqliteMediaPort } from './media-store.js';
export { createSqliteTokenPort } from './token-store.js';
export { createSqliteResponsePort } from './response-store.js';
export { createSqliteAuditPort } from './audit.js';
export { createSqliteEvidencePort } from './evidence.js';
export { createSqliteObsPort } from './obs-counters.js';
export { createSqliteRetentionPort } from './retention.js';
export {
  createSqliteMemoryPort,
  DEFAULT_EMBEDDING_CACHE_EVICTION_BATCH,
  DEFAULT_EMBEDDING_CACHE_MAX_ENTRIES,
  type SqliteMemoryPort,
  type SqliteMemoryPortOptions,
} from './memory-store.js';
export { toFtsAnyQuery } from './memory-lexical.js';
export { openSqliteStore, type OpenSqliteStoreOptions } from './store.js';
export { createReaderThread, type ReaderThread } from './sql-reader.js';
export { createWriterThread, type WriterThread } from './sql-writer.js';
