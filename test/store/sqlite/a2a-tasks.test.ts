// The SQLite A2aTaskPort: the shared conformance cases on a fresh file.
import { createA2aTaskPort } from '../../../src/store/shared/index.js';
import { sqliteStoreDb } from '../../../src/store/sqlite/index.js';
import { a2aTaskPortCases } from '../a2a-tasks.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

a2aTaskPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createA2aTaskPort(sqliteStoreDb(db)), close };
});
