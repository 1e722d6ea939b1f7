// The PostgreSQL side of the conformance suites: one server per test file, a fresh migrated database per fixture.
import { describe } from 'vitest';
import { createPool, type PgPool } from '../../../src/store/postgres/index.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../../support/postgres-server.js';
/** A fresh port and how to release it: what every cases file's `open` hands back. */
export type OpenPort<P> = () => Promise<{ port: P; close(): Promise<void>; url: string }>;

/**
 * Registers `cases` against PostgreSQL: inside a describe that starts one server for the file, or skipped with the
 * reason in its name when this machine has no PostgreSQL binaries.
 */
export function postgresCases<P>(port: string, cases: (backend: string, open: OpenPort<P>) => void, build: (pool: PgPool) => P): void {
  if (postgresBinDir === undefined) {
    describe.skip(`${port} on PostgreSQL (${POSTGRES_SKIP_REASON})`, () => cases('postgres', () => Promise.reject(new Error(POSTGRES_SKIP_REASON))));
    return;
  }
  describe(`${port} on PostgreSQL`, () => {
    const server = usePostgresServer();
    cases('postgres', async () => {
      const database = await server().freshDatabase();
      const pool = createPool({ url: database.url, maxConnections: 4 });
      return {
        port: build(pool),
        url: database.url,
        async close() {
          if (!pool.ending) await pool.end();
          await database.drop();
        },
      };
    });
  });
}
