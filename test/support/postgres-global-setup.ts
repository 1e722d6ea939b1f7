// Vitest global setup: one PostgreSQL server for the whole run (when this machine has the binaries), so test files
// get fresh databases on it instead of each paying for initdb, start and migrations; removed when the run ends.
import type { TestProject } from 'vitest/node';
import { launchPostgres, postgresBinDir } from './postgres-process.js';

/** Two workers' files, each with a few pools and spawned gateways, stay well under this. */
const SHARED_MAX_CONNECTIONS = 200;

export default async function startSharedPostgres(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (postgresBinDir === undefined) {
    project.provide('sharedPostgres', undefined);
    return undefined;
  }
  const server = await launchPostgres({ maxConnections: SHARED_MAX_CONNECTIONS });
  project.provide('sharedPostgres', { adminUrl: server.adminUrl, dataDir: server.dataDir });
  return () => server.stop();
}
