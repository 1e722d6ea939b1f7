// The composition root's storage backend (DESIGN §2 `storage`): the SQLite file in the data dir, or a shared PostgreSQL.
import type { Logger } from 'pino';
import type { GatewayConfig, GatewayPaths } from './config/index.js';
import type { StorePorts } from './store/index.js';
import { openPostgresStore } from './store/postgres/index.js';
import { openSqliteStore } from './store/sqlite/index.js';

export interface OpenStoreOptions {
  config: GatewayConfig;
  paths: GatewayPaths;
  log: Logger;
}

/** Rejects when PostgreSQL cannot be reached or holds a schema newer than this build (see store/postgres/migrate.ts). */
export async function openStore({ config, paths, log }: OpenStoreOptions): Promise<StorePorts> {
  const memory = { embeddingCacheMaxEntries: config.memory.embeddingCacheMaxEntries };
  const { storage } = config;
  if (storage.kind === 'sqlite') return openSqliteStore({ path: paths.databasePath, log, memory });
  return openPostgresStore({ url: storage.url, maxConnections: storage.maxConnections, migrate: storage.migrate, log, memory });
}
