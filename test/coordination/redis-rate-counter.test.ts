// The shared HTTP rate-limit counter: one fixed window per key, counted exactly across replicas.
import type { RateCounter } from '../../src/coordination/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startReplica, type Replica } from './redis-fixture.js';

describe('redis rate counter', () => {
  let redis: RedisServer;
  let a: Replica;
  let b: Replica;
  const counterOf = (replica: Replica): RateCounter => {
    const counter = replica.coordination.rateCounter;
    if (counter === undefined) throw new Error('redis coordination has a rate counter');
    return counter;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await Promise.all([startReplica(redis.url), startReplica(redis.url)]);
  });
  afterAll(async () => {
    await Promise.all([a.coordination.close(), b.coordination.close()]);
    await redis.stop();
  });

  it('counts concurrent hits from two replicas exactly once each, in one window', async () => {
    const hits = await Promise.all(
      Array.from({ length: 40 }, (_, index) => counterOf(index % 2 === 0 ? a : b).hit('token:alice', 60_000)),
    );
    expect(hits.map((hit) => hit.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 40 }, (_, index) => index + 1),
    );
    for (const hit of hits) {
      expect(hit.ttlMs).toBeGreaterThan(0);
      expect(hit.ttlMs).toBeLessThanOrEqual(60_000);
    }
  });

  it('keeps each key in its own window', async () => {
    expect((await counterOf(a).hit('ip:10.0.0.1', 60_000)).count).toBe(1);
    expect((await counterOf(b).hit('ip:10.0.0.2', 60_000)).count).toBe(1);
    expect((await counterOf(b).hit('ip:10.0.0.1', 60_000)).count).toBe(2);
  });

  it('opens the window at the first hit and starts counting again once it closes', async () => {
    const first = await counterOf(a).hit('token:bob', 300);
    expect(first).toMatchObject({ count: 1, ttlMs: 300 });
    const second = await counterOf(b).hit('token:bob', 300);
    expect(second.count).toBe(2);
    // The window is the first hit's: a later hit does not push its end out.
    expect(second.ttlMs).toBeLessThanOrEqual(300);
    await new Promise((resolve) => setTimeout(resolve, second.ttlMs + 50));
    expect(await counterOf(b).hit('token:bob', 300)).toMatchObject({ count: 1, ttlMs: 300 });
  });
});
