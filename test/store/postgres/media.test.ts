// The PostgreSQL MediaPort: the shared conformance cases against a fresh database on a throwaway server.
import { createMediaPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { mediaPortCases } from '../media.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('MediaPort', mediaPortCases, (pool: PgPool) => createMediaPort(postgresStoreDb(pool)));
