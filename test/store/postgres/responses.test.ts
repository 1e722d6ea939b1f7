// The PostgreSQL ResponsePort: the shared conformance cases against a fresh database on a throwaway server.
import { createResponsePort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { responsePortCases } from '../responses.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('ResponsePort', responsePortCases, (pool: PgPool) => createResponsePort(postgresStoreDb(pool)));
