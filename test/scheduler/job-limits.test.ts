// Limits on what one token's jobs may do: jobs per owner, names per owner, the rate limit, cron gaps, skips, history.
import { afterEach, describe, expect, it } from 'vitest';
import { OVERLAP_SKIPPED } from '../../src/scheduler/index.js';
import { T0 } from '../sessions/service-fixture.js';
import { deferred } from '../sessions/scripted-runner.js';
import { createSchedulerFixture, type SchedulerFixture, type SchedulerFixtureOptions } from './scheduler-fixture.js';

const EVERY_MINUTE = { kind: 'interval', everyMs: 60_000 };

describe('scheduled job limits', () => {
  let s: SchedulerFixture | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  async function fixture(options: SchedulerFixtureOptions = {}): Promise<SchedulerFixture> {
    s = await createSchedulerFixture(options);
    return s;
  }
  const add = (f: SchedulerFixture, name: string, schedule: unknown, clientId = 'rpc-client') =>
    f.call(clientId, 'cron.add', { name, message: `run ${name}`, schedule });
  const skippedAt = async (f: SchedulerFixture, jobName: string) =>
    (await f.runs(jobName))
      .filter((run) => run.status === 'skipped')
      .map((run) => [Number(run.ts) - T0, run.summary])
      .reverse();

  it('refuses cron.add past scheduler.maxJobsPerOwner with conflict; each token has its own allowance', async () => {
    const f = await fixture({ config: { maxJobsPerOwner: 2 } });
    expect(await add(f, 'a', EVERY_MINUTE)).toHaveProperty('result');
    expect(await add(f, 'b', EVERY_MINUTE)).toHaveProperty('result');
    const refused = await add(f, 'c', EVERY_MINUTE);
    expect(refused).toMatchObject({ error: { data: { kind: 'conflict' } } });
    expect(refused.error?.message).toContain('at most 2 scheduled jobs (scheduler.maxJobsPerOwner)');
    expect(await add(f, 'c', EVERY_MINUTE, 'mallory')).toHaveProperty('result');
    await f.call('rpc-client', 'cron.remove', { name: 'a' });
    expect(await add(f, 'c', EVERY_MINUTE)).toHaveProperty('result');
  });

  it("keeps names per owner: another token may use a taken name and learns nothing of the other token's job", async () => {
    const f = await fixture();
    const mine = await add(f, 'report', EVERY_MINUTE);
    const theirs = await add(f, 'report', EVERY_MINUTE, 'mallory');
    expect(theirs).toMatchObject({ result: { name: 'report', ownerId: 'mallory' } });
    expect(await add(f, 'report', EVERY_MINUTE, 'mallory')).toMatchObject({
      error: { data: { kind: 'conflict', param: 'name' } },
    });
    expect(await f.call('mallory', 'cron.remove', { name: 'report' })).toMatchObject({ result: { removed: true } });
    expect(await f.call('rpc-client', 'cron.status', { name: 'report' })).toMatchObject({
      result: { id: (mine.result as { id: string }).id },
    });
    expect(await f.call('mallory', 'cron.status', { name: 'report', ownerId: 'rpc-client' })).toMatchObject({
      error: { data: { kind: 'not_found', param: 'name' } },
    });
  });

  it("lets an admin address a job by name, and by name and ownerId when several tokens use the name; lists every owner's", async () => {
    const f = await fixture();
    await add(f, 'report', EVERY_MINUTE);
    const theirs = await add(f, 'report', EVERY_MINUTE, 'mallory');
    await add(f, 'solo', EVERY_MINUTE, 'mallory');
    expect(await f.call('root', 'cron.status', { name: 'solo' }, true)).toMatchObject({ result: { name: 'solo' } });
    expect(await f.call('root', 'cron.status', { name: 'report' }, true)).toMatchObject({
      error: { data: { kind: 'invalid_params', param: 'ownerId' } },
    });
    expect(await f.call('root', 'cron.status', { name: 'report', ownerId: 'mallory' }, true)).toMatchObject({
      result: { id: (theirs.result as { id: string }).id },
    });
    expect(
      await f.call('root', 'cron.update', { name: 'report', ownerId: 'mallory', enabled: false }, true),
    ).toMatchObject({ result: { ownerId: 'mallory', enabled: false } });

    type Page = { jobs: { name: string; ownerId: string }[]; nextCursor: string | null };
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await f.call('root', 'cron.list', { limit: 1, ...(cursor === null ? {} : { cursor }) }, true))
        .result as Page;
      seen.push(...page.jobs.map((job) => `${job.name}/${job.ownerId}`));
      cursor = page.nextCursor;
    } while (cursor !== null && seen.length < 10);
    expect(seen).toEqual(['report/mallory', 'report/rpc-client', 'solo/mallory']);
  });

  it.each([
    [120_000, '*/10 * * * * *', true],
    [120_000, '0,30 * * * * *', true],
    [120_000, '0,59 * * * *', true],
    [120_000, '*/2 * * * *', false],
    [120_000, '0 9 * * *', false],
    [7_200_000, '0 0,23 * * *', true],
    [7_200_000, '0 0,12 * * *', false],
    [7_200_000, '0 0,23 * * 1', false],
  ])('scheduler.minIntervalMs %i: cron %s refused: %s', async (minIntervalMs, expr, refused) => {
    const f = await fixture({ config: { minIntervalMs } });
    const answer = await add(f, 'job', { kind: 'cron', expr });
    if (refused) {
      expect(answer).toMatchObject({ error: { data: { kind: 'invalid_params', param: 'schedule.expr' } } });
      expect(answer.error?.message).toContain(`at least ${minIntervalMs} ms apart (scheduler.minIntervalMs)`);
    } else {
      expect(answer).toHaveProperty('result');
    }
  });

  it('refuses cron.update to a pattern that fires closer than scheduler.minIntervalMs', async () => {
    const f = await fixture({ config: { minIntervalMs: 60_000 } });
    const added = await add(f, 'job', { kind: 'cron', expr: '0 * * * *' });
    expect(
      await f.call('rpc-client', 'cron.update', { name: 'job', schedule: { kind: 'cron', expr: '* * * * * *' } }),
    ).toMatchObject({ error: { data: { kind: 'invalid_params', param: 'schedule.expr' } } });
    expect(await f.call('rpc-client', 'cron.status', { name: 'job' })).toMatchObject({
      result: { scheduleKind: 'cron', nextRunAtMs: (added.result as { nextRunAtMs: number }).nextRunAtMs },
    });
  });

  it("counts each fire against its owner's rate limit: over it, a fire is skipped with the reason until the window reopens", async () => {
    const f = await fixture({ rateLimit: { maxRequests: 3, windowMs: 60_000 } });
    // One request of the token's window went elsewhere (an HTTP call counts under the same key).
    await f.rateCounter.hit('token:rpc-client', 60_000);
    await add(f, 'tight', { kind: 'interval', everyMs: 1_000 });
    await add(f, 'other-token', { kind: 'interval', everyMs: 1_000 }, 'mallory');
    await f.clock.advance(30_000);
    await f.module.scheduler.whenIdle();
    const ran = (owner: string) => f.fx.runner.requests.filter((request) => request.caller.clientId === owner).length;
    expect(ran('rpc-client')).toBe(2);
    expect(ran('mallory')).toBe(3);
    const skipped = await skippedAt(f, 'tight');
    expect(skipped).toEqual([
      [
        3_000,
        expect.stringMatching(
          /^rate-limit: skipped, the owner token is over gateway\.rateLimit \(3 requests per 60000 ms\)/,
        ),
      ],
    ]);
    expect(await f.call('rpc-client', 'cron.status', { name: 'tight' })).toMatchObject({
      result: { nextRunAtMs: T0 + 60_000 },
    });
    await f.clock.advance(35_000);
    await f.module.scheduler.whenIdle();
    expect(ran('rpc-client')).toBe(5);
    expect((await skippedAt(f, 'tight')).map(([ts]) => ts)).toEqual([3_000, 63_000]);
  });

  it('backs off a job whose fires keep being skipped, instead of writing an entry every interval', async () => {
    const f = await fixture();
    const held = deferred();
    f.fx.runner.script({ gate: held.promise, response: 'done' });
    await add(f, 'busy', { kind: 'interval', everyMs: 1_000 });
    try {
      await f.clock.advance(120_000);
      expect(await skippedAt(f, 'busy')).toEqual(
        [2_000, 3_000, 5_000, 9_000, 17_000, 33_000, 65_000].map((ts) => [ts, OVERLAP_SKIPPED]),
      );
      expect(await f.call('rpc-client', 'cron.status', { name: 'busy' })).toMatchObject({
        result: { nextRunAtMs: T0 + 129_000 },
      });
    } finally {
      held.resolve();
    }
    await f.module.scheduler.whenIdle();
    await f.clock.advance(11_000);
    await f.module.scheduler.whenIdle();
    // The fire at 129 s ran, and with the streak over the job keeps its own interval again.
    expect((await f.runs('busy')).slice(0, 3).map((run) => [Number(run.ts) - T0, run.status])).toEqual([
      [131_000, 'ok'],
      [130_000, 'ok'],
      [129_000, 'ok'],
    ]);
  });

  it("gives a job's turn only the newest scheduler.jobHistoryMessages messages of its session", async () => {
    const f = await fixture({ config: { jobHistoryMessages: 3 } });
    await add(f, 'chatty', EVERY_MINUTE);
    for (let fire = 0; fire < 5; fire += 1) {
      await f.clock.advance(60_000);
      await f.module.scheduler.whenIdle();
    }
    expect(f.fx.runner.historyLengths).toEqual([0, 2, 3, 3, 3]);
    const [request] = f.fx.runner.requests;
    expect(request?.historyLimit).toBe(3);
  });
});
