// The PostgreSQL schema as numbered migrations, each applied in its own transaction; a released version is never edited.
import { CONFIG_MIGRATIONS } from './schema-config.js';
import { CORE_MIGRATIONS } from './schema-core.js';
import { EVIDENCE_MIGRATIONS } from './schema-evidence.js';
import { MEMORY_MIGRATIONS } from './schema-memory.js';
import { OWNER_MIGRATIONS } from './schema-owners.js';
import { SESSION_MIGRATIONS } from './schema-sessions.js';

export interface PostgresMigration {
  version: number;
  name: string;
  up: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  ...CORE_MIGRATIONS,
  ...SESSION_MIGRATIONS,
  ...EVIDENCE_MIGRATIONS,
  ...MEMORY_MIGRATIONS,
  ...CONFIG_MIGRATIONS,
  ...OWNER_MIGRATIONS,
];

/** The schema version this build writes and reads: its newest migration. */
export const POSTGRES_SCHEMA_VERSION = Math.max(...POSTGRES_MIGRATIONS.map((migration) => migration.version));
