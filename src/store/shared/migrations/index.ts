// The one migration history from version 23 on: each migration written once with Kysely's schema builder, numbered the
// same on SQLite and PostgreSQL and applied after each backend's frozen legacy history (see src/store/README.md).
import { Kysely, PostgresDialect, SqliteDialect, type Compilable } from 'kysely';
import type { Dialect } from '../store-db.js';
import { A2A_TASKS_MIGRATION } from './a2a-tasks-31.js';
import { BUDGET_USAGE_MIGRATION } from './budget-usage-28.js';
import { GRAPHS_MIGRATION } from './graphs-25.js';
import { GRAPH_RETENTION_MIGRATION } from './graph-retention-26.js';
import { HEARTBEAT_JOBS_MIGRATION } from './heartbeat-jobs-27.js';
import { LEARNING_MIGRATION } from './learning-24.js';
import { SESSION_LIFECYCLE_MIGRATION } from './session-lifecycle-29.js';
import { SESSION_LIST_MIGRATION } from './session-list-30.js';
import { TURNS_MIGRATION } from './turns-23.js';

/** A migration as a backend runs it: SQL text of one or more statements, applied in one transaction, recorded by version. */
export interface SqlMigration {
  version: number;
  name: string;
  up: string;
}

/** A migration of both backends: its statements built for the dialect given, branching on it only where SQL differs. */
export interface SharedMigration {
  version: number;
  name: string;
  up(db: Kysely<unknown>, dialect: Dialect): readonly Compilable[];
}

/**
 * The first shared version, after SQLite's last legacy one (22). PostgreSQL, whose legacy history stops at 11, records
 * the same numbers, so one version names one schema change on both backends.
 */
export const FIRST_SHARED_VERSION = 23;

/** Every shared migration, in version order; a released one is never edited, only followed by a new one. */
export const SHARED_MIGRATIONS: readonly SharedMigration[] = [
  TURNS_MIGRATION,
  LEARNING_MIGRATION,
  GRAPHS_MIGRATION,
  GRAPH_RETENTION_MIGRATION,
  HEARTBEAT_JOBS_MIGRATION,
  BUDGET_USAGE_MIGRATION,
  SESSION_LIFECYCLE_MIGRATION,
  SESSION_LIST_MIGRATION,
  A2A_TASKS_MIGRATION,
];

/** Compiles statements only (the backend runs the SQL): the dialect's connection is never asked for. */
const neverConnects = (): Promise<never> => Promise.reject(new Error('a migration compiler runs no query'));
const compilerOf = (dialect: Dialect): Kysely<unknown> =>
  new Kysely<unknown>({
    dialect:
      dialect === 'sqlite'
        ? new SqliteDialect({ database: neverConnects })
        : new PostgresDialect({ pool: neverConnects }),
  });

/**
 * A backend's whole history: its legacy migrations, then the shared ones in its dialect. Shared versions start at 23
 * and rise, so each backend's runner, which applies in version order, applies them after every legacy one.
 */
export function migrationsFor(
  dialect: Dialect,
  legacy: readonly SqlMigration[],
  shared: readonly SharedMigration[],
): SqlMigration[] {
  const db = compilerOf(dialect);
  let previous = FIRST_SHARED_VERSION - 1;
  const compiled = shared.map(({ version, name, up }) => {
    if (version <= previous) throw new Error(`shared migration ${version} must follow ${previous}`);
    previous = version;
    const statements = up(db, dialect).map((statement) => {
      const query = statement.compile();
      // Schema statements take no bound parameters: their SQL text is all that is run.
      if (query.parameters.length > 0) throw new Error(`shared migration ${version} binds parameters`);
      return query.sql;
    });
    return { version, name, up: statements.join(';\n') };
  });
  return [...legacy, ...compiled];
}
