// The PostgreSQL side of the conformance suites: one server per test file, a fresh migrated database per suite.
import { beforeAll, describe } from 'vitest';
import { createPool, type PgPool } from '../../../src/store/postgres/index.js';
import {
  emptyDatabase,
  POSTGRES_SKIP_REASON,
  postgresBinDir,
  usePostgresServer,
} from '../../support/postgres-server.js';
/** A fresh port and how to release it: what every cases file's `open` hands back. */
export type OpenPort<P> = () => Promise<{ port: P; close(): Promise<void>; url: string }>;

/**
 * Registers `cases` against PostgreSQL: inside a describe that starts one server for the file, or skipped with the
 * reason in its name when this machine has no PostgreSQL binaries.
 */
export function postgresCases<P>(
  port: string,
  cases: (backend: string, open: OpenPort<P>) => void,
  build: (pool: PgPool) => P,
): void {
  if (postgresBinDir === undefined) {
    describe.skip(`${port} on PostgreSQL (${POSTGRES_SKIP_REASON})`, () =>
      cases('postgres', () => Promise.reject(new Error(POSTGRES_SKIP_REASON))));
    return;
  }
  describe(`${port} on PostgreSQL`, () => {
    const server = usePostgresServer();
    // One migrated database per suite, emptied before each case.
    let url = '';
    beforeAll(async () => {
      url = (await server().freshDatabase()).url;
    });
    cases('postgres', async () => {
      await emptyDatabase(url);
      const pool = createPool({ url, maxConnections: 4 });
      return {
        port: build(pool),
        url,
        async close() {
          if (!pool.ending) await pool.end();
        },
      };
    });
  });
}
