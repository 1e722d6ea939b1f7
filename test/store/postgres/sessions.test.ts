// The PostgreSQL SessionPort: the shared conformance cases against a fresh database on a throwaway server.
import {
  createPool,
  createPostgresSessionPort,
  postgresStoreDb,
  type PgPool,
} from '../../../src/store/postgres/index.js';
import { createRunPort } from '../../../src/store/shared/index.js';
import { sessionPortCases, type SessionPortFixture } from '../sessions.cases.js';
import { postgresCases } from './fixture.js';

postgresCases<PgPool>(
  'SessionPort',
  (backend, open) =>
    sessionPortCases(backend, async (): Promise<SessionPortFixture> => {
      const fixture = await open();
      // A restart is a new pool on the same database: what the port committed is all there is.
      let pool = fixture.port;
      const others: PgPool[] = [];
      return {
        port: createPostgresSessionPort(pool),
        async reopen() {
          await pool.end();
          pool = createPool({ url: fixture.url, maxConnections: 4 });
          return createPostgresSessionPort(pool);
        },
        async otherConnection() {
          const other = createPool({ url: fixture.url, maxConnections: 2 });
          others.push(other);
          return createPostgresSessionPort(other);
        },
        runs: () => createRunPort(postgresStoreDb(pool)),
        async close() {
          if (!pool.ending) await pool.end();
          for (const other of others) await other.end();
          await fixture.close();
        },
      };
    }),
  (pool) => pool,
);
