// In-process replicas for end-to-end tests: gateways sharing one Redis (coordination: redis) and one SQLite file
// standing in for PostgreSQL, started by the test and removed with everything they wrote.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type Harness, type HarnessOptions } from './gateway-harness.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

export interface SharedReplicas {
  redis: RedisServer;
  /** The shared database file. */
  databasePath: string;
  /** Starts one more replica with `options`; closing it early is allowed, close() stops the rest. */
  start(options: HarnessOptions, coordination?: { channelLeaseTtlMs?: number }): Promise<Harness>;
  close(): Promise<void>;
}

export async function startSharedReplicas(): Promise<SharedReplicas> {
  const redis = await startRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-shared-db-'));
  const databasePath = join(dir, 'gateway.db');
  const running = new Set<Harness>();
  return {
    redis,
    databasePath,
    async start(options, coordination = {}) {
      const harness = await startGateway({
        ...options,
        coordination: { kind: 'redis', url: redis.url, ...coordination },
        sharedDatabasePath: databasePath,
      });
      const replica: Harness = {
        ...harness,
        async close() {
          running.delete(replica);
          await harness.close();
        },
      };
      running.add(replica);
      return replica;
    },
    async close() {
      for (const replica of [...running]) await replica.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
