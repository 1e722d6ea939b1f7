// Leader leases in Redis: one holder at a time, renewed by it alone, taken over only after it lapses or is released.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startReplica, type Replica } from './redis-fixture.js';

describe('redis leader leases', () => {
  let redis: RedisServer;
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await Promise.all([startReplica(redis.url), startReplica(redis.url)]);
  });
  afterAll(async () => {
    await Promise.all([a.coordination.close(), b.coordination.close()]);
    await redis.stop();
  });

  it('gives a lease to one of many replicas asking at once', async () => {
    const others = await Promise.all(Array.from({ length: 4 }, () => startReplica(redis.url)));
    try {
      const replicas = [a, b, ...others];
      const taken = await Promise.all(replicas.map((replica) => replica.coordination.leases.acquire('race', 60_000)));
      expect(taken.filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all(others.map((replica) => replica.coordination.close()));
    }
  });

  it('lets only the holder acquire again and renew; another replica cannot renew or release it', async () => {
    expect(await a.coordination.leases.acquire('scheduler', 60_000)).toBe(true);
    expect(await b.coordination.leases.acquire('scheduler', 60_000)).toBe(false);
    expect(await a.coordination.leases.acquire('scheduler', 60_000)).toBe(true);
    expect(await a.coordination.leases.renew('scheduler', 60_000)).toBe(true);
    expect(await b.coordination.leases.renew('scheduler', 60_000)).toBe(false);
    await b.coordination.leases.release('scheduler');
    expect(await b.coordination.leases.acquire('scheduler', 60_000)).toBe(false);
  });

  it('passes to another replica at once when released', async () => {
    expect(await a.coordination.leases.acquire('released', 60_000)).toBe(true);
    await a.coordination.leases.release('released');
    expect(await b.coordination.leases.acquire('released', 60_000)).toBe(true);
  });

  it('is taken over after it lapses, and the old holder can then neither renew nor release it', async () => {
    expect(await a.coordination.leases.acquire('lapsing', 200)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await b.coordination.leases.acquire('lapsing', 60_000)).toBe(true);
    expect(await a.coordination.leases.renew('lapsing', 60_000)).toBe(false);
    await a.coordination.leases.release('lapsing');
    expect(await a.coordination.leases.acquire('lapsing', 60_000)).toBe(false);
    expect(await b.coordination.leases.renew('lapsing', 60_000)).toBe(true);
  });
});
