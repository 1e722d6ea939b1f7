// The PostgreSQL backend: a connection pool, versioned migrations, and the PostgreSQL implementations of the storage ports.
export { createPool, transaction, type PgPool, type PostgresPoolOptions } from './pool.js';
export {
  POSTGRES_LEGACY_MIGRATIONS,
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
  postgresMigrations,
  type PostgresMigration,
} from './migrations.js';
export { migratePostgres, schemaVersion, assertSchemaSupported } from './migrate.js';
export { createPostgresSessionPort } from './session-store.js';
export { createPostgresObsPort } from './obs-counters.js';
export { createPostgresRetentionPort } from './retention.js';
export { createPostgresEvidencePort } from './evidence.js';
export { createPostgresMemoryPort, type PostgresMemoryPort, type PostgresMemoryPortOptions } from './memory-store.js';
export { openPostgresStore, probePgvector, type OpenPostgresStoreOptions } from './store.js';
export { postgresStoreDb } from './store-db.js';
export {
  createPostgresConfigRevisionPort,
  openPostgresConfigRevisions,
  type OpenPostgresConfigRevisionsOptions,
  type PostgresConfigRevisionOptions,
} from './config-revisions.js';
