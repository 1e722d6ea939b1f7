// Session locks across replicas: one holder per session at a time, renewed while held, lost visibly, fenced.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LockHold } from '../../src/coordination/index.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { FAST_TIMINGS, startReplica, type Replica } from './redis-fixture.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('redis session locks', () => {
  let redis: RedisServer;
  let raw: Redis;
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    redis = await startRedisServer();
    raw = new Redis(redis.url);
    [a, b] = await Promise.all([startReplica(redis.url), startReplica(redis.url)]);
  });
  afterAll(async () => {
    await Promise.all([a.coordination.close(), b.coordination.close()]);
    raw.disconnect();
    await redis.stop();
  });

  it('runs the work of one session on one replica at a time', async () => {
    let inside = 0;
    let most = 0;
    const fences: number[] = [];
    const work = async ({ fence }: LockHold) => {
      inside += 1;
      most = Math.max(most, inside);
      fences.push(fence);
      await sleep(20);
      inside -= 1;
    };
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 === 0 ? a : b).coordination.locks.run('default:alice:ws', work),
      ),
    );
    expect(most).toBe(1);
    expect(fences).toHaveLength(10);
    // Each holder's fence is larger than every earlier holder's.
    expect(fences).toEqual([...fences].sort((x, y) => x - y));
    expect(new Set(fences).size).toBe(10);
  });

  it('never blocks one session on another', async () => {
    const held = deferred();
    const holding = a.coordination.locks.run('default:bob:ws', () => held.promise);
    await expect(b.coordination.locks.run('default:carol:ws', async () => 'done')).resolves.toBe('done');
    held.resolve();
    await holding;
  });

  it('keeps a lock held past its TTL while the work runs, and frees it when the work ends or throws', async () => {
    const lockTtlMs = FAST_TIMINGS.lockTtlMs ?? 0;
    let bEntered = false;
    let aSignal: AbortSignal | undefined;
    const longWork = a.coordination.locks.run('default:dave:ws', async ({ signal }) => {
      aSignal = signal;
      await sleep(lockTtlMs * 2.5);
      expect(bEntered).toBe(false);
    });
    await vi.waitFor(() => expect(aSignal).toBeDefined());
    const waiting = b.coordination.locks.run('default:dave:ws', async () => {
      bEntered = true;
    });
    await longWork;
    await waiting;
    expect(bEntered).toBe(true);
    expect(aSignal?.aborted).toBe(false);
    await expect(
      a.coordination.locks.run('default:dave:ws', async () => Promise.reject(new Error('turn failed'))),
    ).rejects.toThrow('turn failed');
    await expect(b.coordination.locks.run('default:dave:ws', async () => 'next')).resolves.toBe('next');
  });

  it('waits for a lock left by a crashed holder until it lapses', async () => {
    await raw.set('test:lock:default:erin:ws', 'crashed-replica/1', 'PX', 300);
    let entered = false;
    await b.coordination.locks.run('default:erin:ws', async () => {
      entered = true;
    });
    expect(entered).toBe(true);
    expect(await raw.exists('test:lock:default:erin:ws')).toBe(0);
  });

  it('tells a stale holder it lost the lock, and its release leaves the new holder in place', async () => {
    const key = 'test:lock:default:frank:ws';
    const aLost = deferred();
    const bHolding = deferred();
    const bDone = deferred();
    let aReason: unknown;
    let taken: Promise<void> | undefined;
    await a.coordination.locks.run('default:frank:ws', async ({ signal }) => {
      // As if this replica stalled past the TTL: the lock lapses and another replica takes the session.
      await raw.del(key);
      taken = b.coordination.locks.run('default:frank:ws', async () => {
        bHolding.resolve();
        await bDone.promise;
      });
      await bHolding.promise;
      signal.addEventListener('abort', () => {
        aReason = signal.reason;
        aLost.resolve();
      });
      await aLost.promise;
    });
    expect(aReason).toMatchObject({ kind: 'unavailable' });
    // A has finished and released; B still holds the session.
    expect(await raw.get(key)).toMatch(new RegExp(`^${b.coordination.instances.currentId}/`));
    bDone.resolve();
    await taken;
    expect(await raw.exists(key)).toBe(0);
  });
});
