// The PostgreSQL ObsPort's token-usage reads on a throwaway server.
import {
  createPostgresEvidencePort,
  createPostgresObsPort,
  createPostgresSessionPort,
  type PgPool,
} from '../../../src/store/postgres/index.js';
import { usageReadsCases } from '../usage.cases.js';
import { postgresCases } from './fixture.js';

postgresCases<PgPool>(
  'ObsPort usage reads',
  (backend, open) =>
    usageReadsCases(backend, async () => {
      const fixture = await open();
      return {
        evidence: createPostgresEvidencePort(fixture.port),
        obs: createPostgresObsPort(fixture.port),
        sessions: createPostgresSessionPort(fixture.port),
        close: fixture.close,
      };
    }),
  (pool) => pool,
);
