// Overlap, concurrency across jobs, and fires missed while the gateway was down (both policies, the SQLite file reopened).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OVERLAP_SKIPPED } from '../../src/scheduler/index.js';
import { T0 } from '../sessions/service-fixture.js';
import { deferred } from '../sessions/scripted-runner.js';
import { createSchedulerFixture, type SchedulerFixture } from './scheduler-fixture.js';

describe('scheduler fire policies', () => {
  let s: SchedulerFixture | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('records a fire due while the previous one still runs as skipped with the reason, and runs other jobs concurrently', async () => {
    s = await createSchedulerFixture();
    const held = deferred();
    const other = deferred();
    s.fx.runner.script({ gate: held.promise, response: 'done' }, { gate: other.promise, response: 'done' });
    await s.call('rpc-client', 'cron.add', {
      name: 'slow',
      message: 'slow',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.call('rpc-client', 'cron.add', {
      name: 'other',
      message: 'other',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.clock.advance(60_000);
    expect(s.fx.runner.concurrency.current).toBe(2);
    await s.clock.advance(60_000);
    expect(await s.runs('slow')).toEqual([
      expect.objectContaining({ status: 'skipped', summary: OVERLAP_SKIPPED, durationMs: 0 }),
    ]);
    held.resolve();
    other.resolve();
    await s.module.scheduler.whenIdle();
    const runs = await s.runs('slow');
    expect(runs.map((run) => [Number(run.ts) - T0, run.status, run.summary])).toEqual([
      [60_000, 'ok', 'done'],
      [120_000, 'skipped', OVERLAP_SKIPPED],
    ]);
    expect(s.fx.runner.concurrency.max).toBe(2);
    expect(s.fx.runner.requests).toHaveLength(2);
  });

  it('records a failed turn as an error entry and as the job lastError', async () => {
    s = await createSchedulerFixture();
    s.fx.runner.script({ finishReason: 'error', error: 'provider down', response: '' });
    await s.call('rpc-client', 'cron.add', {
      name: 'flaky',
      message: 'x',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    expect(await s.runs('flaky')).toEqual([expect.objectContaining({ status: 'error', error: 'provider down' })]);
    expect(await s.call('rpc-client', 'cron.status', { name: 'flaky' })).toMatchObject({
      result: { lastError: 'provider down' },
    });
  });

  it('records an error entry when run control refuses the fire, and runs no turn', async () => {
    s = await createSchedulerFixture({ refuseRuns: 'run tree revoked' });
    await s.call('rpc-client', 'cron.add', {
      name: 'refused',
      message: 'x',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    expect(await s.runs('refused')).toEqual([expect.objectContaining({ status: 'error', error: 'run tree revoked' })]);
    expect(s.fx.runner.requests).toEqual([]);
  });

  it('records an unknown failure of the turn as Internal error, never its raw message', async () => {
    s = await createSchedulerFixture();
    s.fx.runner.script({ throws: new Error('SQLITE_FULL at /var/lib/secret.db') });
    await s.call('rpc-client', 'cron.add', {
      name: 'broken',
      message: 'x',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    expect(await s.runs('broken')).toEqual([expect.objectContaining({ status: 'error', error: 'Internal error' })]);
  });

  async function downtime(policy: 'skip' | 'run-once'): Promise<SchedulerFixture> {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-sched-'));
    const path = join(dir, 'gateway.db');
    const before = await createSchedulerFixture({ path, config: { missedFires: policy } });
    await before.call('rpc-client', 'cron.add', {
      name: 'hourly',
      message: 'hourly report',
      schedule: { kind: 'interval', everyMs: 3_600_000 },
    });
    await before.call('rpc-client', 'cron.add', {
      name: 'future',
      message: 'f',
      schedule: { kind: 'interval', everyMs: 86_400_000 },
    });
    await before.clock.advance(3_600_000);
    await before.module.scheduler.whenIdle();
    expect(await before.runs('hourly')).toHaveLength(1);
    await before.close();
    // Down from T0+1h to T0+5.5h: the fires at 2h, 3h, 4h and 5h were missed.
    return createSchedulerFixture({ path, config: { missedFires: policy }, startAt: T0 + 5.5 * 3_600_000 });
  }

  it('run-once: a restart after downtime fires each missed job once, recorded as such, then keeps its grid', async () => {
    s = await downtime('run-once');
    await s.module.scheduler.whenIdle();
    const runs = await s.runs('hourly');
    expect(runs.map((run) => [Number(run.ts) - T0, run.status, run.summary])).toEqual([
      [5.5 * 3_600_000, 'ok', 'missed-fire: run-once (4 missed)'],
      [3_600_000, 'ok', 'Echo: hourly report'],
    ]);
    expect(s.fx.runner.requests.map((request) => request.message)).toEqual(['hourly report']);
    expect(await s.runs('future')).toEqual([]);
    expect(await s.call('rpc-client', 'cron.status', { name: 'hourly' })).toMatchObject({
      result: { nextRunAtMs: T0 + 6 * 3_600_000 },
    });
    await s.clock.advance(30 * 60_000);
    await s.module.scheduler.whenIdle();
    expect((await s.runs('hourly')).map((run) => Number(run.ts) - T0)[0]).toBe(6 * 3_600_000);
  });

  it('skip: a restart after downtime records the missed fires as skipped and runs no turn for them', async () => {
    s = await downtime('skip');
    await s.module.scheduler.whenIdle();
    expect((await s.runs('hourly')).map((run) => [Number(run.ts) - T0, run.status, run.summary])).toEqual([
      [5.5 * 3_600_000, 'skipped', 'missed-fire: skipped (4 missed)'],
      [3_600_000, 'ok', 'Echo: hourly report'],
    ]);
    expect(s.fx.runner.requests).toEqual([]);
    expect(await s.call('rpc-client', 'cron.status', { name: 'hourly' })).toMatchObject({
      result: { nextRunAtMs: T0 + 6 * 3_600_000 },
    });
  });
});
