// The SQLite ObsPort's token-usage reads against a temporary database file.
import {
  createSqliteEvidencePort,
  createSqliteObsPort,
  createSqliteSessionPort,
} from '../../../src/store/sqlite/index.js';
import { usageReadsCases } from '../usage.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

usageReadsCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return {
    evidence: createSqliteEvidencePort(db),
    obs: createSqliteObsPort(db),
    sessions: createSqliteSessionPort(db),
    close,
  };
});
