// The PostgreSQL AuditPort: the shared conformance cases against a fresh database on a throwaway server.
import { createPostgresAuditPort } from '../../../src/store/postgres/index.js';
import { auditPortCases } from '../audit.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('AuditPort', auditPortCases, createPostgresAuditPort);
