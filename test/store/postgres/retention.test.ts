// The PostgreSQL RetentionPort: the shared conformance cases on a throwaway server.
import { createAuditPort } from '../../../src/store/shared/index.js';
import {
  createPostgresEvidencePort,
  createPostgresObsPort,
  createPostgresRetentionPort,
  type PgPool,
  postgresStoreDb,
} from '../../../src/store/postgres/index.js';
import { retentionPortCases } from '../retention.cases.js';
import { postgresCases } from './fixture.js';

postgresCases<PgPool>(
  'RetentionPort',
  (backend, open) =>
    retentionPortCases(backend, async () => {
      const fixture = await open();
      return {
        port: createPostgresRetentionPort(fixture.port),
        evidence: createPostgresEvidencePort(fixture.port),
        obs: createPostgresObsPort(fixture.port),
        audit: createAuditPort(postgresStoreDb(fixture.port)),
        close: fixture.close,
      };
    }),
  (pool) => pool,
);
