// The composition root's storage backend (DESIGN §2 `storage`): the SQLite file in the data dir, or a shared PostgreSQL;
// and where the config lives with it: config.yaml under git, or revisions in that PostgreSQL.
import type { Logger } from 'pino';
import {
  createConfigStore,
  createDatabaseConfigStore,
  createGitHistory,
  type ConfigStore,
  type ConfigStoreDeps,
  type GatewayConfig,
  type GatewayPaths,
} from './config/index.js';
import type { StorePorts } from './store/index.js';
import { openSqliteStore } from './store/sqlite/index.js';

/** Loaded only under `storage: postgres`: a single-node gateway never loads `pg` (start-up time and memory). */
const postgres = () => import('./store/postgres/index.js');

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
  const { openPostgresStore } = await postgres();
  return openPostgresStore({
    url: storage.url,
    maxConnections: storage.maxConnections,
    migrate: storage.migrate,
    log,
    memory,
  });
}

export interface OpenConfigStoreOptions extends Omit<
  ConfigStoreDeps,
  'history' | 'configPath' | 'secretsPath' | 'initialDocument' | 'watchFile'
> {
  config: GatewayConfig;
  paths: GatewayPaths;
  /** Recorded with each database revision this replica writes. */
  replicaId: string;
}

/**
 * Under sqlite, config.yaml with its git history, hand edits applied live; under postgres, the database's revisions
 * (seeded from config.yaml on the first start), applied live on every replica.
 */
export async function openConfigStore({
  config,
  paths,
  replicaId,
  ...deps
}: OpenConfigStoreOptions): Promise<ConfigStore> {
  const file = { configPath: paths.configPath, secretsPath: paths.secretsPath, initialDocument: config };
  const { storage } = config;
  if (storage.kind === 'sqlite') {
    return createConfigStore({
      ...deps,
      ...file,
      history: createGitHistory({ dataDir: paths.dataDir, configPath: paths.configPath, env: deps.env }),
      watchFile: true,
      // The gateway listens while git commits the file as it starts (several git processes, tens of ms).
      readiesHistoryLater: true,
    });
  }
  const { openPostgresConfigRevisions } = await postgres();
  const revisions = await openPostgresConfigRevisions({ url: storage.url, migrate: storage.migrate, log: deps.log });
  return createDatabaseConfigStore({ ...deps, ...file, revisions, author: replicaId }).catch(async (error: unknown) => {
    await revisions.close();
    throw error;
  });
}
