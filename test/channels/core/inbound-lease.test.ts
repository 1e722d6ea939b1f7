// The pulled inbound of a channel under Redis leases (real redis-server): one replica pulls, a holder that goes away
// silently is replaced once its lease lapses, a lease lost to another replica stops the pulling, and a Redis that
// does not answer stops it too rather than risk two replicas pulling.
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullInboundUnderLease, type InboundPuller } from '../../../src/channels/inbound-lease.js';
import { createLogger } from '../../../src/obs/logger.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { startReplica, type Replica } from '../../coordination/redis-fixture.js';

const TTL_MS = 1_500;
const log = createLogger({ level: 'silent' });

/** A puller that records whether it pulls, and how often it was told to stand by. */
function recordingPuller() {
  const state = { isPulling: false, starts: 0, standbys: 0 };
  const puller: InboundPuller = {
    start() {
      state.isPulling = true;
      state.starts += 1;
    },
    async stop() {
      state.isPulling = false;
    },
    standby() {
      state.standbys += 1;
    },
  };
  return { state, puller };
}

describe('pulled inbound under leases', () => {
  let redis: RedisServer;
  const replicas: Replica[] = [];
  let prefix = 0;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.coordination.close().catch(() => undefined);
    await redis?.stop();
  });

  async function twoReplicas() {
    prefix += 1;
    const keyPrefix = `lease-${prefix}:`;
    const pair = [await startReplica(redis.url, { keyPrefix }), await startReplica(redis.url, { keyPrefix })] as const;
    replicas.push(...pair);
    const pull = (replica: Replica) =>
      pullInboundUnderLease('tg', { leases: replica.coordination.leases, ttlMs: TTL_MS, log });
    return { pair, pull };
  }

  it('lets one replica pull while the other stands by, and hands over when the puller stops', async () => {
    const { pair, pull } = await twoReplicas();
    const first = recordingPuller();
    const second = recordingPuller();
    const holdA = pull(pair[0])(first.puller);
    await holdA.started;
    const holdB = pull(pair[1])(second.puller);
    await holdB.started;
    expect(first.state.isPulling).toBe(true);
    expect(second.state).toMatchObject({ isPulling: false, standbys: 1 });
    await delay(TTL_MS * 2);
    expect([first.state.isPulling, second.state.isPulling]).toEqual([true, false]);

    await holdA.stop();
    await expect.poll(() => second.state.isPulling, { timeout: TTL_MS * 3 }).toBe(true);
    expect(first.state.isPulling).toBe(false);
    await holdB.stop();
    expect(second.state.isPulling).toBe(false);
  });

  it('takes over from a holder that went away without a word once its lease lapses', async () => {
    const { pair, pull } = await twoReplicas();
    // The holder takes the lease and is never renewed nor released: a crashed replica.
    expect(await pair[0].coordination.leases.acquire('channel:tg:inbound', TTL_MS)).toBe(true);
    const second = recordingPuller();
    const hold = pull(pair[1])(second.puller);
    await hold.started;
    expect(second.state.isPulling).toBe(false);
    await expect.poll(() => second.state.isPulling, { timeout: TTL_MS * 4 }).toBe(true);
    await hold.stop();
  });

  it('stops pulling when another replica took the lease, and when Redis does not answer', async () => {
    const { pair, pull } = await twoReplicas();
    const first = recordingPuller();
    const hold = pull(pair[0])(first.puller);
    await hold.started;
    expect(first.state.isPulling).toBe(true);
    // The lease lapses while the holder stalls, and another replica takes it: the holder's next renewal fails.
    const direct = new Redis(redis.url);
    await direct.del(`lease-${prefix}:lease:channel:tg:inbound`);
    direct.disconnect();
    expect(await pair[1].coordination.leases.acquire('channel:tg:inbound', TTL_MS * 10)).toBe(true);
    await expect.poll(() => first.state.isPulling, { timeout: TTL_MS * 3 }).toBe(false);
    await pair[1].coordination.leases.release('channel:tg:inbound');
    await expect.poll(() => first.state.isPulling, { timeout: TTL_MS * 3 }).toBe(true);

    await redis.stop();
    await expect.poll(() => first.state.isPulling, { timeout: TTL_MS * 4 }).toBe(false);
    await hold.stop();
  });
});
