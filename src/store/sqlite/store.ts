// Opens the SQLite file (migrating it) and builds every port over it, evidence and obs writes on a writer thread.
import type { StorePorts } from '../ports/index.js';
import { createSqliteAuditPort } from './audit.js';
import { openDatabase } from './database.js';
import { createSqliteEvidencePort } from './evidence.js';
import { createSqliteObsPort } from './obs-counters.js';
import { createSqliteResponsePort } from './response-store.js';
import { createSqliteRunPort } from './run-store.js';
import { createSqliteSessionPort } from './session-store.js';
import { createWriterThread } from './sql-writer.js';
import { createSqliteTokenPort } from './token-store.js';

/**
 * Evidence and obs batches are written by a writer thread with its own connection, so the event loop never waits on
 * them; every other port runs on this thread's connection (its reads must see its own writes at once).
 */
export function openSqliteStore({ path }: { path: string }): StorePorts {
  const db = openDatabase({ path });
  const writers = path === ':memory:' ? undefined : createWriterThread(path);
  return {
    sessions: createSqliteSessionPort(db),
    runs: createSqliteRunPort(db),
    tokens: createSqliteTokenPort(db),
    responses: createSqliteResponsePort(db),
    audit: createSqliteAuditPort(db),
    evidence: createSqliteEvidencePort(db, writers),
    obs: createSqliteObsPort(db, writers),
    async close() {
      await writers?.close();
      db.close();
    },
  };
}
