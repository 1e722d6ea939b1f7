// The PostgreSQL schema's migrations: its frozen legacy history (versions 1 to 11, one file per area), then the shared
// list from version 23; each is applied in its own transaction.
import {
  migrationsFor,
  SHARED_MIGRATIONS,
  type SharedMigration,
  type SqlMigration,
} from '../shared/migrations/index.js';
import { CONFIG_MIGRATIONS } from './schema-config.js';
import { CORE_MIGRATIONS } from './schema-core.js';
import { EVIDENCE_MIGRATIONS } from './schema-evidence.js';
import { MEMORY_MIGRATIONS } from './schema-memory.js';
import { OWNER_MIGRATIONS } from './schema-owners.js';
import { SESSION_MIGRATIONS } from './schema-sessions.js';

export type PostgresMigration = SqlMigration;

/** What this backend ran before the shared history: released, never edited. */
export const POSTGRES_LEGACY_MIGRATIONS: readonly PostgresMigration[] = [
  ...CORE_MIGRATIONS,
  ...SESSION_MIGRATIONS,
  ...EVIDENCE_MIGRATIONS,
  ...MEMORY_MIGRATIONS,
  ...CONFIG_MIGRATIONS,
  ...OWNER_MIGRATIONS,
];

/** The legacy history, then `shared` in PostgreSQL's SQL. */
export const postgresMigrations = (shared: readonly SharedMigration[] = SHARED_MIGRATIONS): PostgresMigration[] =>
  migrationsFor('postgres', POSTGRES_LEGACY_MIGRATIONS, shared);

/** Every migration this build applies to a database. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = postgresMigrations();

/** The schema version this build writes and reads: its newest migration. */
export const POSTGRES_SCHEMA_VERSION = Math.max(...POSTGRES_MIGRATIONS.map((migration) => migration.version));
