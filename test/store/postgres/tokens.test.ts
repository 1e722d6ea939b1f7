// The PostgreSQL TokenPort: the shared conformance cases against a fresh database on a throwaway server.
import { createTokenPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { tokenPortCases } from '../tokens.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('TokenPort', tokenPortCases, (pool: PgPool) => createTokenPort(postgresStoreDb(pool)));
