// The PostgreSQL JobPort: the shared conformance cases against a fresh database on a throwaway server.
import { createJobPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { jobPortCases } from '../jobs.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('JobPort', jobPortCases, (pool: PgPool) => createJobPort(postgresStoreDb(pool)));
