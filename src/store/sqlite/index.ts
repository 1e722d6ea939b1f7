// The SQLite backend: one file in WAL mode, its migrations, and the SQLite implementations of the storage ports.
export { openDatabase, applyMigrations, type SqliteDatabase } from './database.js';
export { MIGRATIONS, SQLITE_LEGACY_MIGRATIONS, sqliteMigrations, type Migration } from './migrations/index.js';
export { createSqliteSessionPort, type SqliteSessionPort } from './session-store.js';
export { toFtsQuery } from './session-search.js';
export { createSqliteEvidencePort } from './evidence.js';
export { createSqliteObsPort } from './obs-counters.js';
export { createSqliteRetentionPort } from './retention.js';
export { createSqliteMemoryPort, type SqliteMemoryPort, type SqliteMemoryPortOptions } from './memory-store.js';
export { toFtsAnyQuery } from './memory-lexical.js';
export { openSqliteStore } from './store.js';
export {
  createSqliteApprovalPort,
  createSqliteAuditPort,
  createSqliteJobPort,
  createSqliteMediaPort,
  createSqliteResponsePort,
  createSqliteRunPort,
  createSqliteTokenPort,
  sqliteStoreDb,
} from './store-db.js';
export { createReaderThread, type ReaderThread } from './sql-reader.js';
export { createWriterThread, type WriterThread } from './sql-writer.js';
