// The PostgreSQL LearningPort: the shared conformance cases against a fresh database on a throwaway server.
import { createLearningPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { learningPortCases } from '../learning.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('LearningPort', learningPortCases, (pool: PgPool) => createLearningPort(postgresStoreDb(pool)));
