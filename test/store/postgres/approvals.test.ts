// The PostgreSQL ApprovalPort: the shared conformance cases against a fresh database on a throwaway server.
import { createPostgresApprovalPort } from '../../../src/store/postgres/index.js';
import { approvalPortCases } from '../approvals.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('ApprovalPort', approvalPortCases, createPostgresApprovalPort);
