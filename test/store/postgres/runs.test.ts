// The PostgreSQL RunPort: the shared conformance cases against a fresh database on a throwaway server.
import { createRunPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { runPortCases } from '../runs.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('RunPort', runPortCases, (pool: PgPool) => createRunPort(postgresStoreDb(pool)));
