// The PostgreSQL AuditPort: the shared conformance cases against a fresh database on a throwaway server.
import { createAuditPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { auditPortCases } from '../audit.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('AuditPort', auditPortCases, (pool: PgPool) => createAuditPort(postgresStoreDb(pool)));
