// Opens the SQLite file (migrating it) and builds every port over the one connection.
import type { StorePorts } from '../ports/index.js';
import { createSqliteAuditPort } from './audit.js';
import { openDatabase } from './database.js';
import { createSqliteEvidencePort } from './evidence.js';
import { createSqliteObsPort } from './obs-counters.js';
import { createSqliteResponsePort } from './response-store.js';
import { createSqliteRunPort } from './run-store.js';
import { createSqliteSessionPort } from './session-store.js';
import { createSqliteTokenPort } from './token-store.js';

export function openSqliteStore({ path }: { path: string }): StorePorts {
  const db = openDatabase({ path });
  return {
    sessions: createSqliteSessionPort(db),
    runs: createSqliteRunPort(db),
    tokens: createSqliteTokenPort(db),
    responses: createSqliteResponsePort(db),
    audit: createSqliteAuditPort(db),
    evidence: createSqliteEvidencePort(db),
    obs: createSqliteObsPort(db),
    close: () => db.close(),
  };
}
