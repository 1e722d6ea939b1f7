// cron.* over JSON-RPC dispatch: scopes, params per the catalogue, refusals naming the param, ownership, update and remove.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSchedulerFixture, type SchedulerFixture } from './scheduler-fixture.js';

const CRON_METHODS = ['cron.add', 'cron.list', 'cron.remove', 'cron.run', 'cron.runs', 'cron.status', 'cron.update'];

describe('cron methods', () => {
  let s: SchedulerFixture;
  beforeEach(async () => {
    s = await createSchedulerFixture();
  });
  afterEach(async () => {
    await s.close();
  });

  const add = (params: Record<string, unknown>, clientId = 'rpc-client') =>
    s.call(clientId, 'cron.add', { name: 'job', message: 'hello', ...params });

  it('declares the seven cron methods, all rpc scope', () => {
    expect((s.module.methods ?? []).map((method) => [method.name, method.scope]).sort()).toEqual(
      CRON_METHODS.map((name) => [name, 'rpc']),
    );
  });

  it.each([
    [{ schedule: { kind: 'cron', expr: '61 * * * *' } }, 'schedule.expr', /invalid cron expression '61 \* \* \* \*'/],
    [
      { schedule: { kind: 'cron', expr: '0 9 * * *', tz: 'Mars/Olympus' } },
      'schedule.tz',
      /unknown IANA time zone 'Mars\/Olympus'/,
    ],
    [{ schedule: { kind: 'cron' } }, 'schedule.expr', /required/],
    [
      { schedule: { kind: 'cron', expr: '0 9 * * *', everyMs: 1000 } },
      'schedule.everyMs',
      /not used by a 'cron' schedule/,
    ],
    [{ schedule: { kind: 'once', at: '2000-01-01T00:00:00Z' } }, 'schedule.at', /in the past/],
    [{ schedule: { kind: 'once', at: 'tomorrow' } }, 'schedule.at', /not an ISO 8601 date-time/],
    [{ schedule: { kind: 'once' } }, 'schedule.at', /required/],
    [{ schedule: { kind: 'interval' } }, 'schedule.everyMs', /required/],
    [
      { schedule: { kind: 'interval', everyMs: 10 } },
      'schedule.everyMs',
      /at least 1000 ms \(scheduler.minIntervalMs\)/,
    ],
    [{ schedule: { kind: 'interval', everyMs: 60_000 }, agentId: 'ghost' }, 'agentId', /Agent 'ghost' not found/],
  ])('refuses cron.add %j naming %s', async (params, param, message) => {
    const response = await add(params);
    expect(response).toMatchObject({ error: { data: { param } } });
    expect(JSON.stringify(response)).toMatch(message);
    expect(await s.call('rpc-client', 'cron.list')).toMatchObject({ result: { jobs: [] } });
  });

  it.each([
    ['cron.add', { name: 'x', message: 'm', schedule: { kind: 'hourly' } }, 'schedule.kind'],
    ['cron.add', { name: 'x', message: 'm', schedule: { kind: 'interval', everyMs: 60_000 }, extra: 1 }, 'extra'],
    ['cron.add', { message: 'm', schedule: { kind: 'interval', everyMs: 60_000 } }, 'name'],
    [
      'cron.add',
      { name: 'x', message: 'm', schedule: { kind: 'interval', everyMs: 60_000 }, wakeGate: { kind: 'magic' } },
      'wakeGate.kind',
    ],
    ['cron.list', { all: true }, 'all'],
    ['cron.runs', { name: 'x' }, 'name'],
    ['cron.runs', { jobName: 'x', limit: 0 }, 'limit'],
    ['cron.run', { mode: 'later' }, 'mode'],
    ['cron.update', { name: 'x', enabled: 'yes' }, 'enabled'],
  ])('answers -32602 for %s %j naming %s', async (method, params, param) => {
    const response = await s.call('rpc-client', method, params);
    expect(response).toMatchObject({ error: { code: -32602 } });
    expect(response.error?.message).toContain(param);
  });

  it('refuses a taken name with conflict and cron.run force without a name', async () => {
    await add({ schedule: { kind: 'interval', everyMs: 60_000 } });
    expect(await add({ schedule: { kind: 'interval', everyMs: 60_000 } })).toMatchObject({
      error: { code: -32603, data: { kind: 'conflict', param: 'name' } },
    });
    expect(await s.call('rpc-client', 'cron.run', { mode: 'force' })).toMatchObject({
      error: { data: { kind: 'invalid_params', param: 'name' } },
    });
  });

  it("cron.list pages by name with limit and nextCursor, within the caller's own jobs", async () => {
    for (const jobName of ['delta', 'alpha', 'charlie', 'bravo'])
      await add({ name: jobName, schedule: { kind: 'interval', everyMs: 60_000 } });
    await add({ name: 'aaa-other', schedule: { kind: 'interval', everyMs: 60_000 } }, 'mallory');
    type Page = { jobs: { name: string }[]; nextCursor: string | null };
    const page = async (params: Record<string, unknown>, clientId = 'rpc-client', isAdmin = false) => {
      const result = (await s.call(clientId, 'cron.list', params, isAdmin)).result as Page;
      return { names: result.jobs.map((job) => job.name), nextCursor: result.nextCursor };
    };
    expect(await page({ limit: 3 })).toEqual({ names: ['alpha', 'bravo', 'charlie'], nextCursor: 'charlie' });
    expect(await page({ limit: 3, cursor: 'charlie' })).toEqual({ names: ['delta'], nextCursor: null });
    expect(await page({ limit: 2 }, 'root', true)).toEqual({ names: ['aaa-other', 'alpha'], nextCursor: 'alpha' });
    expect((await s.call('rpc-client', 'cron.list', { limit: 0 })).error).toMatchObject({
      code: -32602,
      data: { param: 'limit' },
    });
  });

  it('keeps jobs to their owner: another rpc client gets not_found, an admin reaches them all', async () => {
    await add({ schedule: { kind: 'interval', everyMs: 60_000 } });
    for (const [method, params, param] of [
      ['cron.status', { name: 'job' }, 'name'],
      ['cron.update', { name: 'job', message: 'x' }, 'name'],
      ['cron.remove', { name: 'job' }, 'name'],
      ['cron.runs', { jobName: 'job' }, 'jobName'],
      ['cron.run', { name: 'job' }, 'name'],
    ] as const) {
      expect(await s.call('mallory', method, params)).toMatchObject({
        error: { message: "Job 'job' not found", data: { kind: 'not_found', param } },
      });
    }
    expect(await s.call('mallory', 'cron.list')).toMatchObject({ result: { jobs: [] } });
    expect(await s.call('root', 'cron.list', undefined, true)).toMatchObject({ result: { jobs: [{ name: 'job' }] } });
    expect(await s.call('root', 'cron.status', { name: 'job' }, true)).toMatchObject({ result: { name: 'job' } });
  });

  it('cron.update changes only the supplied fields; a new schedule or re-enabling starts from now', async () => {
    const t0 = s.clock.now();
    const created = await add({ schedule: { kind: 'cron', expr: '0 9 * * *', tz: 'Asia/Tokyo' } });
    const id = (created.result as { id: string }).id;
    const renamedMessage = await s.call('rpc-client', 'cron.update', { name: 'job', message: 'new text' });
    expect(renamedMessage).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      result: { ...(created.result as object), id },
    });
    await s.call('rpc-client', 'cron.update', { name: 'job', enabled: false });
    expect(await s.call('rpc-client', 'cron.status', { name: 'job' })).toMatchObject({
      result: { enabled: false, scheduleKind: 'cron' },
    });
    await s.clock.advance(3 * 86_400_000);
    await s.module.scheduler.whenIdle();
    expect(s.fx.runner.requests).toEqual([]);
    const moved = await s.call('rpc-client', 'cron.update', {
      name: 'job',
      schedule: { kind: 'interval', everyMs: 120_000 },
      enabled: true,
    });
    expect(moved).toMatchObject({
      result: {
        scheduleKind: 'interval',
        everyMs: 120_000,
        tz: 'UTC',
        enabled: true,
        nextRunAtMs: t0 + 3 * 86_400_000 + 120_000,
      },
    });
    expect(moved.result).not.toHaveProperty('expr');
    await s.clock.advance(120_000);
    await s.module.scheduler.whenIdle();
    expect(s.fx.runner.requests.map((request) => request.message)).toEqual(['new text']);
    expect(
      await s.call('rpc-client', 'cron.update', { name: 'job', schedule: { kind: 'cron', expr: 'nope' } }),
    ).toMatchObject({ error: { data: { param: 'schedule.expr' } } });
  });

  it('cron.remove deletes the job and its run entries; cron.runs honours limit and agentId', async () => {
    await add({ schedule: { kind: 'interval', everyMs: 60_000 } });
    await s.clock.advance(180_000);
    await s.module.scheduler.whenIdle();
    expect(await s.call('rpc-client', 'cron.runs', { jobName: 'job', limit: 2 })).toMatchObject({
      result: { runs: [{ status: 'ok' }, { status: 'ok' }] },
    });
    expect(await s.call('rpc-client', 'cron.runs', { jobName: 'job', agentId: 'default' })).toMatchObject({
      result: { runs: [{}, {}, {}] },
    });
    expect(await s.call('rpc-client', 'cron.remove', { name: 'job' })).toMatchObject({
      result: { removed: true, name: 'job' },
    });
    expect(await s.call('rpc-client', 'cron.runs', { jobName: 'job' })).toMatchObject({
      error: { data: { kind: 'not_found', param: 'jobName' } },
    });
    expect(s.clock.pendingTimers()).toBe(0);
  });
});
