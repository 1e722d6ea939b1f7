// The SQLite file's migrations: its frozen legacy history (versions 1 to 22), then the shared list from version 23.
import {
  migrationsFor,
  SHARED_MIGRATIONS,
  type SharedMigration,
  type SqlMigration,
} from '../../shared/migrations/index.js';
import { LEGACY_1_TO_11 } from './legacy-1-11.js';
import { LEGACY_12_TO_22 } from './legacy-12-22.js';

export type Migration = SqlMigration;

/** What this backend ran before the shared history: released, never edited. */
export const SQLITE_LEGACY_MIGRATIONS: readonly Migration[] = [...LEGACY_1_TO_11, ...LEGACY_12_TO_22];

/** The legacy history, then `shared` in SQLite's SQL. */
export const sqliteMigrations = (shared: readonly SharedMigration[] = SHARED_MIGRATIONS): Migration[] =>
  migrationsFor('sqlite', SQLITE_LEGACY_MIGRATIONS, shared);

/** Every migration this build applies to a SQLite file. */
export const MIGRATIONS: readonly Migration[] = sqliteMigrations();
