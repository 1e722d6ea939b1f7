// Opens the SQLite file (migrating it) and builds every port over it, evidence and obs writes on a writer thread.
import type { Logger } from 'pino';
import { createSharedPorts } from '../shared/index.js';
import type { StorePorts } from '../index.js';
import { openDatabase } from './database.js';
import { createSqliteEvidencePort } from './evidence.js';
import { createSqliteMemoryPort, type SqliteMemoryPortOptions } from './memory-store.js';
import { createSqliteObsPort } from './obs-counters.js';
import { createSqliteRetentionPort } from './retention.js';
import { createSqliteSessionPort } from './session-store.js';
import { createReaderThread } from './sql-reader.js';
import { createWriterThread } from './sql-writer.js';
import { sqliteStoreDb } from './store-db.js';

export interface OpenSqliteStoreOptions {
  path: string;
  /** Where session writes that could not be stored are reported; a stdout logger of its own when absent. */
  log?: Logger;
  /** The memory port's limits and vector lane. */
  memory?: SqliteMemoryPortOptions;
}

/**
 * Evidence and obs batches are written by a writer thread with its own connection, so the event loop never waits on
 * them; the memory search's lexical query runs on a reader thread, alongside its vector lane. Every other port runs on
 * this thread's connection (its reads must see its own writes at once; the reader sees every write committed before
 * its query, and no transaction here stays open across an await).
 */
export function openSqliteStore({ path, log, memory = {} }: OpenSqliteStoreOptions): StorePorts {
  const db = openDatabase({ path });
  const writers = path === ':memory:' ? undefined : createWriterThread(path);
  const reader = path === ':memory:' ? undefined : createReaderThread(path);
  const sessions = createSqliteSessionPort(db, log === undefined ? {} : { log });
  return {
    ...createSharedPorts(sqliteStoreDb(db)),
    sessions,
    evidence: createSqliteEvidencePort(db, writers),
    obs: createSqliteObsPort(db, writers),
    memory: createSqliteMemoryPort(db, memory, reader),
    retention: createSqliteRetentionPort(db, writers),
    // The session port's queued appends and usage are written before the file is closed.
    async close() {
      sessions.flush();
      await writers?.close();
      await reader?.close();
      db.close();
    },
  };
}
