// The PostgreSQL ApprovalPort: the shared conformance cases against a fresh database on a throwaway server.
import { createApprovalPort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { approvalPortCases } from '../approvals.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('ApprovalPort', approvalPortCases, (pool: PgPool) => createApprovalPort(postgresStoreDb(pool)));
