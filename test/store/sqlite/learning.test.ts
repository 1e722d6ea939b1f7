// The SQLite LearningPort: the shared conformance cases on a fresh file.
import { createLearningPort } from '../../../src/store/shared/index.js';
import { sqliteStoreDb } from '../../../src/store/sqlite/index.js';
import { learningPortCases } from '../learning.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

learningPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createLearningPort(sqliteStoreDb(db)), close };
});
