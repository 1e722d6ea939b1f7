// Two schedulers on one job store, competing for the leader lease in Redis: a due job fires once, even when the
// lease passes from one to the other between a scheduler's look at the jobs and its taking of the lease.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCHEDULER_LEASE, type SchedulerLeases } from '../../src/scheduler/index.js';
import { startReplica, type Replica } from '../coordination/redis-fixture.js';
import { T0 } from '../sessions/service-fixture.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { createSchedulerFixture, type SchedulerFixture } from './scheduler-fixture.js';

describe('scheduler across replicas', () => {
  let redis: RedisServer;
  let replicaA: Replica;
  let replicaB: Replica;
  let dir: string;
  const fixtures: SchedulerFixture[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    [replicaA, replicaB] = await Promise.all([startReplica(redis.url), startReplica(redis.url)]);
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-sched-replicas-'));
  });
  afterEach(async () => {
    for (const fixture of fixtures.splice(0)) await fixture.close();
  });
  afterAll(async () => {
    await Promise.all([replicaA.coordination.close(), replicaB.coordination.close()]);
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('fires a due job once when A fires it and hands the lease over while B is about to take it', async () => {
    const path = join(dir, 'handover.db');
    const a = await createSchedulerFixture({ path, leases: replicaA.coordination.leases });
    fixtures.push(a);
    // B's lease calls go to Redis unchanged; the first one first lets A fire and give the lease up, which is
    // what happens when B looks at the jobs just before A's fire and takes the lease just after A's lapsed.
    let isFirst = true;
    const leasesB: SchedulerLeases = {
      async acquire(name, ttlMs) {
        if (isFirst) {
          isFirst = false;
          await a.clock.advanceTo(T0 + 1_000);
          await a.module.scheduler.whenIdle();
          await replicaA.coordination.leases.release(SCHEDULER_LEASE);
        }
        return replicaB.coordination.leases.acquire(name, ttlMs);
      },
      release: (name) => replicaB.coordination.leases.release(name),
    };
    const b = await createSchedulerFixture({ path, leases: leasesB });
    fixtures.push(b);

    const added = await a.call('rpc-client', 'cron.add', {
      name: 'report',
      message: 'Send the report',
      schedule: { kind: 'once', at: new Date(T0 + 1_000).toISOString() },
    });
    expect(added.error).toBeUndefined();
    await b.module.scheduler.reschedule();
    await b.clock.advanceTo(T0 + 1_000);
    await b.module.scheduler.whenIdle();

    expect(a.started.length + b.started.length).toBe(1);
    expect(a.started).toHaveLength(1);
  });

  it('arms a job added on A on the leader B too, which fires it on time', async () => {
    const path = join(dir, 'announced.db');
    const a = await createSchedulerFixture({
      path,
      leases: replicaA.coordination.leases,
      jobChanges: replicaA.coordination.jobChanges,
    });
    const b = await createSchedulerFixture({
      path,
      leases: replicaB.coordination.leases,
      jobChanges: replicaB.coordination.jobChanges,
    });
    fixtures.push(a, b);
    expect(await replicaB.coordination.leases.acquire(SCHEDULER_LEASE, 60_000)).toBe(true);
    expect(b.clock.pendingTimers()).toBe(0);
    await a.call('rpc-client', 'cron.add', {
      name: 'nightly',
      message: 'Run the nightly job',
      schedule: { kind: 'once', at: new Date(T0 + 1_000).toISOString() },
    });
    // B hears of the job from A and arms its timer for it.
    await vi.waitFor(() => expect(b.clock.pendingTimers()).toBe(1));
    await Promise.all([a.clock.advanceTo(T0 + 1_000), b.clock.advanceTo(T0 + 1_000)]);
    await Promise.all([a.module.scheduler.whenIdle(), b.module.scheduler.whenIdle()]);
    expect(b.started).toHaveLength(1);
    expect(a.started).toHaveLength(0);
    await replicaB.coordination.leases.release(SCHEDULER_LEASE);
  });

  it('lets only the lease holder fire when both see the job due', async () => {
    const path = join(dir, 'both.db');
    const a = await createSchedulerFixture({ path, leases: replicaA.coordination.leases });
    const b = await createSchedulerFixture({ path, leases: replicaB.coordination.leases });
    fixtures.push(a, b);
    await a.call('rpc-client', 'cron.add', {
      name: 'tick',
      message: 'Tick',
      schedule: { kind: 'once', at: new Date(T0 + 1_000).toISOString() },
    });
    await b.module.scheduler.reschedule();
    await Promise.all([a.clock.advanceTo(T0 + 1_000), b.clock.advanceTo(T0 + 1_000)]);
    await Promise.all([a.module.scheduler.whenIdle(), b.module.scheduler.whenIdle()]);
    expect(a.started.length + b.started.length).toBe(1);
  });
});
