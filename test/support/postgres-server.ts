// The PostgreSQL server of a test file: the run's shared server (started by postgres-global-setup.ts), a fresh database per fixture.
import { afterAll, beforeAll, inject } from 'vitest';
import { attachPostgresServer, startPostgresServer, type PostgresServer } from './postgres-process.js';

export {
  emptyDatabase,
  POSTGRES_SKIP_REASON,
  postgresBinDir,
  startPostgresServer,
  type PostgresServer,
} from './postgres-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared PostgreSQL server, when this machine has one: see postgres-global-setup.ts. */
    sharedPostgres: { adminUrl: string; dataDir: string } | undefined;
  }
}

/**
 * The server for the calling test file: the run's shared one (the file's databases are dropped after its last test),
 * or a server of its own when none was started for the run. Tests that stop, pause or kill the server start their own
 * with `startPostgresServer`. Call inside a describe that is skipped when `postgresBinDir` is undefined.
 */
export function usePostgresServer(): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    const shared = inject('sharedPostgres');
    server =
      shared === undefined ? await startPostgresServer() : await attachPostgresServer(shared.adminUrl, shared.dataDir);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error('The PostgreSQL server is not started yet');
    return server;
  };
}
