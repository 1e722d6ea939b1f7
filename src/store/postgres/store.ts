// Opens the PostgreSQL store: a pool, the schema brought up to this build's version (or refused when newer), every port over it.
import type { Logger } from 'pino';
import { createSharedPorts } from '../shared/index.js';
import type { StorePorts } from '../index.js';
import { createPostgresEvidencePort } from './evidence.js';
import { createPostgresMemoryPort, type PostgresMemoryPortOptions } from './memory-store.js';
import { assertSchemaSupported, migratePostgres } from './migrate.js';
import { createPostgresObsPort } from './obs-counters.js';
import { createPool, type PgPool, type PostgresPoolOptions } from './pool.js';
import { createPostgresRetentionPort } from './retention.js';
import { createPostgresSessionPort } from './session-store.js';
import { postgresStoreDb } from './store-db.js';

export interface OpenPostgresStoreOptions extends PostgresPoolOptions {
  /**
   * Apply missing migrations at open (the default, like the SQLite store); false leaves the schema to
   * `agent-gateway migrate` and only checks that it is not newer than this build.
   */
  migrate?: boolean;
  /** Told which vector lane memory uses. */
  log?: Logger;
  memory?: PostgresMemoryPortOptions;
}

/** Whether the server has pgvector: CREATE EXTENSION succeeds (it needs the package on the server and the right to create it). */
export async function probePgvector(pool: PgPool): Promise<boolean> {
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
    return true;
  } catch {
    return false;
  }
}

/** Rejects (and closes the pool) when the server cannot be reached or its schema is newer than this build. */
export async function openPostgresStore({
  migrate = true,
  log,
  memory = {},
  ...poolOptions
}: OpenPostgresStoreOptions): Promise<StorePorts> {
  const pool = createPool({ ...poolOptions, ...(log === undefined ? {} : { log }) });
  try {
    if (migrate) await migratePostgres(pool);
    else await assertSchemaSupported(pool);
    // The memory lane is exact cosine over real[] either way; the probe tells the operator whether pgvector could serve.
    log?.info(
      { vectorSearch: 'exact', pgvectorAvailable: await probePgvector(pool) },
      'memory vector search ranks by exact cosine over real[]',
    );
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    ...createSharedPorts(postgresStoreDb(pool)),
    sessions: createPostgresSessionPort(pool),
    evidence: createPostgresEvidencePort(pool),
    obs: createPostgresObsPort(pool),
    memory: createPostgresMemoryPort(pool, memory),
    retention: createPostgresRetentionPort(pool),
    ping: async () => {
      await pool.query('SELECT 1');
    },
    // Every write was committed before its call resolved: nothing is left to flush.
    close: () => pool.end(),
  };
}
