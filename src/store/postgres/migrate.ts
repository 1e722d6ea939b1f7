// Applies the PostgreSQL migrations in order, one transaction each, serialised across replicas by an advisory lock.
import { schemaTooNew, schemaTooOld } from '../../errors.js';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, type PostgresMigration } from './migrations.js';
import { transaction, type PgPool, type Queryable } from './pool.js';

/** Advisory lock key every replica and `agent-gateway migrate` takes while it changes the schema. */
const MIGRATION_LOCK_KEY = 7_461_002_016;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

/** The newest applied version, 0 for an empty database. */
export async function schemaVersion(db: Queryable): Promise<number> {
  const exists = await db.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (exists.rows[0]?.present !== true) return 0;
  const result = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return result.rows[0]?.version ?? 0;
}

/**
 * Brings the schema to this build's version; resolves with the versions it applied (none when another replica did).
 * Rejects with `schemaTooNew` when the database is ahead of this build, before changing anything.
 */
export async function migratePostgres(
  pool: PgPool,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  const supported = Math.max(0, ...migrations.map((migration) => migration.version));
  const applied: number[] = [];
  await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(CREATE_TABLE);
  });
  const current = await schemaVersion(pool);
  if (current > supported) throw schemaTooNew(current, supported);
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const done = await transaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const found = await client.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if ((found.rowCount ?? 0) > 0) return false;
      await client.query(migration.up);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}

/** For a replica that does not migrate: rejects unless the schema is exactly this build's version, naming both. */
export async function assertSchemaSupported(db: Queryable, supported = POSTGRES_SCHEMA_VERSION): Promise<void> {
  const current = await schemaVersion(db);
  if (current > supported) throw schemaTooNew(current, supported);
  if (current < supported) throw schemaTooOld(current, supported);
}
