// The SQLite TokenPort: the shared conformance cases against a temporary database file.
import { createSqliteTokenPort } from '../../../src/store/sqlite/index.js';
import { tokenPortCases } from '../tokens.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

tokenPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createSqliteTokenPort(db), close };
});
