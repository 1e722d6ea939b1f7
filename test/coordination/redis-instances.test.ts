// Instance liveness in Redis: a live replica is never counted gone; one killed with SIGKILL is, once its key lapses.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COORDINATION_LIMITS } from '../../src/coordination/index.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { FAST_TIMINGS, spawnReplicaProcess, startReplica, type Replica } from './redis-fixture.js';

const ISSUE_DEADLINE_MS = 15_000;

describe('redis instance liveness', () => {
  let redis: RedisServer;
  let observer: Replica;
  beforeAll(async () => {
    redis = await startRedisServer();
    observer = await startReplica(redis.url);
  });
  afterAll(async () => {
    await observer.coordination.close();
    await redis.stop();
  });

  it('counts a replica in another process alive for as long as it runs, and gone after kill -9', async () => {
    const replica = await spawnReplicaProcess(redis.url);
    try {
      // Several liveness TTLs pass while it runs: every look in between finds it alive.
      const until = Date.now() + 3 * (FAST_TIMINGS.livenessTtlMs ?? 0);
      while (Date.now() < until) {
        expect(await observer.coordination.instances.isAlive(replica.instanceId)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await replica.kill();
    }
    await vi.waitFor(
      async () => expect(await observer.coordination.instances.isAlive(replica.instanceId)).toBe(false),
      { timeout: 5_000, interval: 50 },
    );
  });

  it('counts itself alive, an unknown id gone, and a replica that closed cleanly gone at once', async () => {
    expect(await observer.coordination.instances.isAlive(observer.coordination.instances.currentId)).toBe(true);
    expect(await observer.coordination.instances.isAlive('an-earlier-process')).toBe(false);
    const other = await startReplica(redis.url, { timings: { ...FAST_TIMINGS, livenessTtlMs: 60_000 } });
    const { currentId } = other.coordination.instances;
    expect(await observer.coordination.instances.isAlive(currentId)).toBe(true);
    await other.coordination.close();
    expect(await observer.coordination.instances.isAlive(currentId)).toBe(false);
  });

  it('by default notices a dead replica and sweeps its runs within the issue 16 deadline of 15 s', () => {
    // A dead replica's key lapses within livenessTtlMs; the next sweep, at most orphanSweepMs later, marks its runs.
    expect(COORDINATION_LIMITS.livenessTtlMs + COORDINATION_LIMITS.orphanSweepMs).toBeLessThan(ISSUE_DEADLINE_MS);
    // A live replica renews several times per TTL, so one late beat does not make it look gone.
    expect(COORDINATION_LIMITS.livenessTtlMs / COORDINATION_LIMITS.heartbeatMs).toBeGreaterThanOrEqual(4);
  });
});
