// Opens the SQLite file (migrating it) and builds every port over the one connection.
import type { Logger } from 'pino';
import type { StorePorts } from '../ports/index.js';
import { createSqliteAuditPort } from './audit.js';
import { openDatabase } from './database.js';
import { createSqliteEvidencePort } from './evidence.js';
import { createSqliteObsPort } from './obs-counters.js';
import { createSqliteResponsePort } from './response-store.js';
import { createSqliteRunPort } from './run-store.js';
import { createSqliteSessionPort } from './session-store.js';
import { createSqliteTokenPort } from './token-store.js';

export interface OpenSqliteStoreOptions {
  path: string;
  /** Where session writes that could not be stored are reported; a stdout logger of its own when absent. */
  log?: Logger;
}

export function openSqliteStore({ path, log }: OpenSqliteStoreOptions): StorePorts {
  const db = openDatabase({ path });
  const sessions = createSqliteSessionPort(db, log === undefined ? {} : { log });
  return {
    sessions,
    runs: createSqliteRunPort(db),
    tokens: createSqliteTokenPort(db),
    responses: createSqliteResponsePort(db),
    audit: createSqliteAuditPort(db),
    evidence: createSqliteEvidencePort(db),
    obs: createSqliteObsPort(db),
    // The session port's queued appends and usage are written before the file is closed.
    close: () => {
      sessions.flush();
      db.close();
    },
  };
}
