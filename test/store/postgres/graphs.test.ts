// The PostgreSQL GraphPort: the shared conformance cases against a fresh database on a throwaway server.
import { createGraphPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { graphPortCases } from '../graphs.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('GraphPort', graphPortCases, (pool: PgPool) => createGraphPort(postgresStoreDb(pool)));
