// The PostgreSQL A2aTaskPort: the shared conformance cases against a fresh database on a throwaway server.
import { createA2aTaskPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { a2aTaskPortCases } from '../a2a-tasks.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('A2aTaskPort', a2aTaskPortCases, (pool: PgPool) => createA2aTaskPort(postgresStoreDb(pool)));
