// Scheduled fires under a fake clock: a cron expression in a non-UTC zone across a DST change, interval, once, due mode.
import { afterEach, describe, expect, it } from 'vitest';
import { createSchedulerFixture, type SchedulerFixture } from './scheduler-fixture.js';

const at = (iso: string) => Date.parse(iso);

describe('scheduler fires', () => {
  let s: SchedulerFixture;
  afterEach(async () => {
    await s.close();
  });

  it('fires a Europe/Berlin 09:00 job at 08:00Z before the DST change and 07:00Z after it, in the job session', async () => {
    s = await createSchedulerFixture({ startAt: at('2026-03-27T12:00:00Z') });
    const added = await s.call('rpc-client', 'cron.add', {
      name: 'standup',
      message: 'Post the standup summary',
      schedule: { kind: 'cron', expr: '0 9 * * *', tz: 'Europe/Berlin' },
    });
    expect(added).toMatchObject({
      result: {
        name: 'standup',
        scheduleKind: 'cron',
        expr: '0 9 * * *',
        tz: 'Europe/Berlin',
        enabled: true,
        nextRunAtMs: at('2026-03-28T08:00:00Z'),
      },
    });

    await s.clock.advanceTo(at('2026-03-30T12:00:00Z'));
    await s.module.scheduler.whenIdle();
    const runs = await s.runs('standup');
    expect(runs.map((run) => [new Date(Number(run.ts)).toISOString(), run.status])).toEqual([
      ['2026-03-30T07:00:00.000Z', 'ok'],
      ['2026-03-29T07:00:00.000Z', 'ok'],
      ['2026-03-28T08:00:00.000Z', 'ok'],
    ]);
    expect(runs[0]).toMatchObject({ summary: 'Echo: Post the standup summary', rootRunId: expect.any(String) });
    const jobId = String(runs[0]?.jobId);
    expect(s.fx.runner.requests.map((request) => [request.sessionKey, request.message, request.caller])).toEqual(
      Array(3).fill([
        `default:rpc-client:cron:${jobId}`,
        'Post the standup summary',
        { clientId: 'rpc-client', isAdmin: false },
      ]),
    );
    expect(s.fx.runner.requests.map((request) => request.rootRunId)).toEqual(
      runs.map((run) => run.rootRunId).reverse(),
    );
    expect(s.started.map((run) => [run.kind, run.runId === run.rootRunId, run.requestedBy])).toEqual(
      Array(3).fill(['cron', true, 'rpc-client']),
    );
    expect(await s.call('rpc-client', 'cron.status', { name: 'standup' })).toMatchObject({
      result: {
        name: 'standup',
        scheduleKind: 'cron',
        enabled: true,
        nextRunAtMs: at('2026-03-31T07:00:00Z'),
        lastRunAtMs: at('2026-03-30T07:00:00Z'),
      },
    });
  });

  it('states UTC when no zone is given and reads the expression in UTC, never the host zone', async () => {
    s = await createSchedulerFixture({ startAt: at('2026-06-01T00:00:00Z') });
    const added = await s.call('rpc-client', 'cron.add', {
      name: 'utc',
      message: 'm',
      schedule: { kind: 'cron', expr: '30 6 * * *' },
    });
    expect(added).toMatchObject({ result: { tz: 'UTC', nextRunAtMs: at('2026-06-01T06:30:00Z') } });
    expect(await s.call('rpc-client', 'cron.list')).toMatchObject({ result: { jobs: [{ name: 'utc', tz: 'UTC' }] } });
  });

  it('fires an interval job on its grid and only one timer waits at a time', async () => {
    s = await createSchedulerFixture();
    const t0 = s.clock.now();
    await s.call('rpc-client', 'cron.add', {
      name: 'poll',
      message: 'poll',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.call('rpc-client', 'cron.add', {
      name: 'slow',
      message: 'slow',
      schedule: { kind: 'interval', everyMs: 3_600_000 },
    });
    expect(s.clock.pendingTimers()).toBe(1);
    await s.clock.advance(185_000);
    await s.module.scheduler.whenIdle();
    expect((await s.runs('poll')).map((run) => Number(run.ts) - t0)).toEqual([180_000, 120_000, 60_000]);
    expect(await s.runs('slow')).toEqual([]);
    expect(s.clock.pendingTimers()).toBe(1);
    expect(await s.call('rpc-client', 'cron.status', { name: 'poll' })).toMatchObject({
      result: { nextRunAtMs: t0 + 240_000 },
    });
  });

  it('fires a once job at its instant and then has nothing left to fire', async () => {
    s = await createSchedulerFixture();
    const when = s.clock.now() + 5_000;
    const added = await s.call('rpc-client', 'cron.add', {
      name: 'remind',
      message: 'remind me',
      schedule: { kind: 'once', at: new Date(when).toISOString() },
    });
    expect(added).toMatchObject({
      result: { scheduleKind: 'once', at: new Date(when).toISOString(), tz: 'UTC', nextRunAtMs: when },
    });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    expect((await s.runs('remind')).map((run) => [run.ts, run.status])).toEqual([[when, 'ok']]);
    expect(await s.call('rpc-client', 'cron.status', { name: 'remind' })).toMatchObject({
      result: { nextRunAtMs: null, lastRunAtMs: when },
    });
    expect(s.clock.pendingTimers()).toBe(0);
  });

  it('mode due fires every overdue job of the caller and leaves the others; force fires one job without moving its schedule', async () => {
    s = await createSchedulerFixture({ config: { enabled: false } });
    const t0 = s.clock.now();
    await s.call('rpc-client', 'cron.add', {
      name: 'a',
      message: 'a',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.call('rpc-client', 'cron.add', {
      name: 'b',
      message: 'b',
      schedule: { kind: 'once', at: new Date(t0 + 30_000).toISOString() },
    });
    await s.call('rpc-client', 'cron.add', {
      name: 'later',
      message: 'later',
      schedule: { kind: 'interval', everyMs: 3_600_000 },
    });
    await s.call('other-client', 'cron.add', {
      name: 'theirs',
      message: 'x',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.clock.advance(90_000);
    await s.module.scheduler.whenIdle();
    expect(s.fx.runner.requests).toEqual([]);

    expect(await s.call('rpc-client', 'cron.run', { mode: 'due' })).toMatchObject({
      result: { triggered: true, mode: 'due' },
    });
    await s.module.scheduler.whenIdle();
    expect(s.fx.runner.requests.map((request) => request.message).sort()).toEqual(['a', 'b']);
    expect(await s.runs('later')).toEqual([]);
    expect(await s.runs('theirs', 'other-client')).toEqual([]);
    expect(await s.call('rpc-client', 'cron.status', { name: 'a' })).toMatchObject({
      result: { nextRunAtMs: t0 + 120_000, lastRunAtMs: t0 + 90_000 },
    });

    expect(await s.call('rpc-client', 'cron.run', { name: 'later' })).toMatchObject({
      result: { triggered: true, mode: 'force', jobName: 'later' },
    });
    await s.module.scheduler.whenIdle();
    expect((await s.runs('later')).map((run) => run.status)).toEqual(['ok']);
    expect(await s.call('rpc-client', 'cron.status', { name: 'later' })).toMatchObject({
      result: { nextRunAtMs: t0 + 3_600_000 },
    });
  });

  it('fires nothing while scheduler.enabled is false and picks the jobs up within a lease period of it turning true', async () => {
    s = await createSchedulerFixture({ config: { enabled: false } });
    await s.call('rpc-client', 'cron.add', {
      name: 'poll',
      message: 'poll',
      schedule: { kind: 'interval', everyMs: 60_000 },
    });
    await s.clock.advance(150_000);
    await s.module.scheduler.whenIdle();
    expect(s.fx.runner.requests).toEqual([]);
    s.config.enabled = true;
    await s.clock.advance(s.config.leaseTtlMs);
    await s.module.scheduler.whenIdle();
    expect((await s.runs('poll')).map((run) => run.status)).toEqual(['ok']);
  });
});
