// The PostgreSQL backend: a connection pool, versioned migrations, and the PostgreSQL implementations of the storage ports.
export { createPool, transaction, type PgPool, type PostgresPoolOptions } from './pool.js';
export { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, type PostgresMigration } from './migrations.js';
export { migratePostgres, schemaVersion, assertSchemaSupported } from './migrate.js';
export { createPostgresTokenPort } from './token-store.js';
export { createPostgresResponsePort } from './response-store.js';
export { createPostgresRunPort } from './run-store.js';
export { createPostgresApprovalPort } from './approval-store.js';
export { createPostgresJobPort } from './job-store.js';
export { createPostgresMediaPort } from './media-store.js';
export { createPostgresAuditPort } from './audit.js';
export { createPostgresSessionPort } from './session-store.js';
export { createPostgresObsPort } from './obs-counters.js';
export { createPostgresRetentionPort } from './retention.js';
export { createPostgresEvidencePort } from './evidence.js';
export { createPostgresMemoryPort, type PostgresMemoryPort, type PostgresMemoryPortOptions } from './memory-store.js';
export { openPostgresStore, probePgvector, type OpenPostgresStoreOptions } from './store.js';
export {
  createPostgresConfigRevisionPort,
  openPostgresConfigRevisions,
  type OpenPostgresConfigRevisionsOptions,
  type PostgresConfigRevisionOptions,
} from './config-revisions.js';
