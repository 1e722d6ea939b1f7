// Orphan recovery across replicas (coordination: redis): a run stays `running` while the replica that owns it
// lives, and another replica's periodic sweep marks it `orphaned` once that replica is killed with SIGKILL.
import { createEventBus } from '../../src/events/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalInstances } from '../../src/coordination/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createRunsModule } from '../../src/runs/index.js';
import { ORPHANED_RUN_ERROR } from '../../src/store/index.js';
import { FAST_TIMINGS, spawnReplicaProcess, startReplica, type Replica } from '../coordination/redis-fixture.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { callerOf, createServiceFixture } from '../sessions/service-fixture.js';

describe('orphan recovery across replicas', () => {
  let redis: RedisServer;
  let observer: Replica;
  let dir: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    observer = await startReplica(redis.url);
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-orphans-'));
  });
  afterAll(async () => {
    await observer.coordination.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("marks a killed replica's runs orphaned by the other replica's sweep, and never while it lives", async () => {
    const path = join(dir, 'gateway.db');
    const replicaA = await spawnReplicaProcess(redis.url);
    // Node A's runs are recorded under the id of the replica process; the process is what lives or dies.
    const nodeA = createServiceFixture({ path, instances: createLocalInstances(replicaA.instanceId) });
    const nodeB = createServiceFixture({ path });
    const log = createLogger({ level: 'silent' });
    const orphanedCounts: number[] = [];
    const sweeperB = createRunsModule({
      store: nodeB.store,
      runs: nodeB.runs,
      turns: nodeB.turns,
      instances: observer.coordination.instances,
      events: createEventBus({ now: Date.now, log }),
      notify: () => 0,
      now: Date.now,
      newId: () => 'unused',
      log,
      orphanSweepMs: FAST_TIMINGS.orphanSweepMs ?? 0,
      onOrphaned: (count) => orphanedCounts.push(count),
    });
    try {
      nodeA.runner.script({ untilAborted: true, response: '' });
      const { runId } = await nodeA.subAgents.spawn({
        parentKey: 'default:alice:ws',
        task: 'long job',
        caller: callerOf('rpc-client'),
      });
      await sweeperB.start?.();
      // Several liveness TTLs and many sweeps pass while replica A lives: its run stays running.
      await new Promise((resolve) => setTimeout(resolve, 3 * (FAST_TIMINGS.livenessTtlMs ?? 0)));
      expect(await nodeB.runs.get(runId)).toMatchObject({ status: 'running', ownerInstance: replicaA.instanceId });
      expect(orphanedCounts.every((count) => count === 0)).toBe(true);

      await replicaA.kill();
      await vi.waitFor(
        async () =>
          expect(await nodeB.runs.get(runId)).toMatchObject({ status: 'orphaned', error: ORPHANED_RUN_ERROR }),
        { timeout: 5_000, interval: 50 },
      );
      expect(orphanedCounts).toContain(1);
    } finally {
      await replicaA.kill();
      await sweeperB.stop?.();
      await nodeA.close();
      await nodeB.close();
    }
  });
});
