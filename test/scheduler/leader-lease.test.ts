// Two gateway instances over one store: only the holder of the scheduler lease fires, so no job fires twice.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEDULER_LEASE, type SchedulerLeases } from '../../src/scheduler/index.js';
import { createSchedulerFixture, type SchedulerFixture } from './scheduler-fixture.js';

/** One shared lease table, as a shared coordination backend keeps it: a lease has one holder until released. */
function sharedLeases() {
  const holders = new Map<string, string>();
  const asked: string[] = [];
  const forInstance = (instance: string): SchedulerLeases => ({
    async acquire(name) {
      asked.push(`${instance}:${name}`);
      const holder = holders.get(name) ?? instance;
      holders.set(name, holder);
      return holder === instance;
    },
    async release(name) {
      if (holders.get(name) === instance) holders.delete(name);
    },
  });
  return { forInstance, asked };
}

describe('scheduler leader lease', () => {
  const fixtures: SchedulerFixture[] = [];
  let dir = '';
  afterEach(async () => {
    for (const fixture of fixtures.splice(0)) await fixture.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fires a due job only on the instance holding the lease; the other takes over once it is released', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-lease-'));
    const path = join(dir, 'gateway.db');
    const leases = sharedLeases();
    const a = await createSchedulerFixture({ path, leases: leases.forInstance('a') });
    fixtures.push(a);
    await a.call('rpc-client', 'cron.add', {
      name: 'tick',
      message: 'tick',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    const b = await createSchedulerFixture({ path, leases: leases.forInstance('b') });
    fixtures.push(b);

    expect(await leases.forInstance('a').acquire(SCHEDULER_LEASE, 30_000)).toBe(true);

    // b sees the job due first, but a holds the lease: b fires nothing; then a fires it.
    await b.clock.advance(60_000);
    await b.module.scheduler.whenIdle();
    expect(leases.asked).toContain(`b:${SCHEDULER_LEASE}`);
    expect(b.fx.runner.requests).toEqual([]);
    await a.clock.advance(60_000);
    await a.module.scheduler.whenIdle();
    expect(a.fx.runner.requests).toHaveLength(1);
    expect(b.fx.runner.requests).toEqual([]);
    expect(await a.runs('tick')).toHaveLength(1);

    await a.module.stop?.();
    await b.clock.advance(60_000);
    await b.module.scheduler.whenIdle();
    expect(b.fx.runner.requests).toHaveLength(1);
    expect((await b.runs('tick')).map((run) => run.status)).toEqual(['ok', 'ok']);
  });
});
