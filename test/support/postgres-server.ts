// A throwaway PostgreSQL server per test file (see postgres-process.ts for the server itself), a fresh database per fixture.
import { afterAll, beforeAll } from 'vitest';
import { startPostgresServer, type PostgresServer } from './postgres-process.js';

export {
  emptyDatabase,
  POSTGRES_SKIP_REASON,
  postgresBinDir,
  startPostgresServer,
  type PostgresServer,
} from './postgres-process.js';

/**
 * One server for the calling test file (started before its first test, stopped and removed after its last); call
 * inside a describe that is skipped when `postgresBinDir` is undefined.
 */
export function usePostgresServer(): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error('The PostgreSQL server is not started yet');
    return server;
  };
}
