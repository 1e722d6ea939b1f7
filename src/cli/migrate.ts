// `agent-gateway migrate`: creates or upgrades the storage schema the config names, and says which versions it applied.
import { loadConfigFile, type GatewayPaths } from '../config/index.js';
import { createPool, migratePostgres, POSTGRES_SCHEMA_VERSION } from '../store/postgres/index.js';
import { applyMigrations, MIGRATIONS, openDatabase } from '../store/sqlite/index.js';
import type { CliIo } from './output.js';

const describeApplied = (applied: readonly number[], version: number) =>
  applied.length === 0
    ? `schema already at version ${version}; nothing to apply`
    : `applied migration(s) ${applied.join(', ')}; schema at version ${version}`;

/**
 * Rejects (exit 1, the message naming both versions) when the database's schema is newer than this build, before
 * changing anything. Safe to run while replicas start: PostgreSQL migrations take an advisory lock.
 */
export async function migrateCommand(paths: GatewayPaths, io: CliIo): Promise<void> {
  const { config } = await loadConfigFile(paths.configPath, io.env, paths.secretsPath);
  const { storage } = config;
  if (storage.kind === 'postgres') {
    const pool = createPool({ url: storage.url, maxConnections: 1 });
    try {
      io.out(`postgres: ${describeApplied(await migratePostgres(pool), POSTGRES_SCHEMA_VERSION)}`);
    } finally {
      await pool.end();
    }
    return;
  }
  // Opening the file applies what is missing; a second pass reports none, so the count comes from the first.
  const db = openDatabase({ path: paths.databasePath, migrations: [] });
  try {
    const applied = applyMigrations(db, MIGRATIONS);
    io.out(
      `sqlite ${paths.databasePath}: ${describeApplied(applied, Math.max(...MIGRATIONS.map((migration) => migration.version)))}`,
    );
  } finally {
    db.close();
  }
}
