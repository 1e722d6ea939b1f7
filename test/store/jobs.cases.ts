// The JobPort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobPort, JobRecord, JobRunRecord } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

export function cronJob(id: string, name: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id,
    name,
    ownerId: 'rpc-client',
    agentId: null,
    message: 'check the inbox',
    schedule: { kind: 'cron', expr: '0 9 * * *', tz: 'Europe/Berlin' },
    enabled: true,
    wakeGate: null,
    heartbeat: null,
    nextRunAtMs: 1_000,
    lastRunAtMs: null,
    lastError: null,
    createdAt: 100,
    updatedAt: 100,
    ...overrides,
  };
}

function runEntry(jobId: string, ts: number, overrides: Partial<JobRunRecord> = {}): JobRunRecord {
  return {
    ts,
    jobId,
    status: 'ok',
    durationMs: 5,
    summary: null,
    error: null,
    toolCalls: null,
    estTurnsSaved: null,
    rootRunId: `run-${ts}`,
    ...overrides,
  };
}

export function jobPortCases(backend: string, open: () => Promise<PortFixture<JobPort>>): void {
  describe(`JobPort conformance (${backend})`, () => {
    let fixture: PortFixture<JobPort>;
    let jobs: JobPort;
    beforeEach(async () => {
      fixture = await open();
      jobs = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('creates each schedule kind and reads it back by id, by name and in the list ordered by name', async () => {
      const cron = cronJob('j1', 'zeta', { wakeGate: { kind: 'events', events: ['message:received'], minCount: 2 } });
      const interval = cronJob('j2', 'alpha', {
        schedule: { kind: 'interval', everyMs: 60_000, tz: 'UTC' },
        agentId: 'ops',
      });
      const once = cronJob('j3', 'mid', {
        schedule: { kind: 'once', atMs: 5_000, tz: 'UTC' },
        wakeGate: { kind: 'tool', tool: 'memory_search', args: { query: 'x' } },
      });
      for (const job of [cron, interval, once]) await jobs.create(job);
      expect(await jobs.get('j1')).toEqual(cron);
      expect(await jobs.byName('rpc-client', 'alpha')).toEqual(interval);
      expect(await jobs.get('j3')).toEqual(once);
      expect((await jobs.list()).map((job) => job.name)).toEqual(['alpha', 'mid', 'zeta']);
      expect(await jobs.get('nope')).toBeUndefined();
      expect(await jobs.byName('rpc-client', 'nope')).toBeUndefined();
      expect(await jobs.byName('someone-else', 'alpha')).toBeUndefined();
    });

    it("pages jobs by name after a given name, all of them or one owner's", async () => {
      for (const [id, name, ownerId] of [
        ['j1', 'delta', 'ann'],
        ['j2', 'alpha', 'bob'],
        ['j3', 'charlie', 'ann'],
        ['j4', 'bravo', 'ann'],
      ]) {
        await jobs.create(cronJob(id ?? '', name ?? '', { ownerId: ownerId ?? '' }));
      }
      const names = (records: { name: string }[]) => records.map((job) => job.name);
      expect(names(await jobs.page({ limit: 2 }))).toEqual(['alpha', 'bravo']);
      expect(names(await jobs.page({ limit: 2, afterName: 'bravo' }))).toEqual(['charlie', 'delta']);
      expect(names(await jobs.page({ limit: 2, afterName: 'delta' }))).toEqual([]);
      expect(names(await jobs.page({ limit: 10, ownerId: 'ann' }))).toEqual(['bravo', 'charlie', 'delta']);
      expect(names(await jobs.page({ limit: 1, ownerId: 'ann', afterName: 'bravo' }))).toEqual(['charlie']);
    });

    it('refuses a second job with a name its owner already uses, on create and on save, naming the param', async () => {
      await jobs.create(cronJob('j1', 'daily'));
      await jobs.create(cronJob('j2', 'weekly'));
      await expect(jobs.create(cronJob('j3', 'daily'))).rejects.toMatchObject({
        kind: 'conflict',
        details: { param: 'name' },
      });
      await expect(jobs.save(cronJob('j2', 'daily'))).rejects.toMatchObject({ kind: 'conflict' });
      expect((await jobs.list()).map((job) => job.id)).toEqual(['j1', 'j2']);
    });

    it("keeps names unique per owner: another owner may use a taken name, and named() finds every owner's", async () => {
      await jobs.create(cronJob('j1', 'daily', { ownerId: 'bob' }));
      await jobs.create(cronJob('j2', 'daily', { ownerId: 'ann' }));
      await jobs.create(cronJob('j3', 'weekly', { ownerId: 'carl' }));
      await jobs.save(cronJob('j3', 'daily', { ownerId: 'carl' }));
      expect(await jobs.byName('ann', 'daily')).toMatchObject({ id: 'j2' });
      expect(await jobs.byName('bob', 'daily')).toMatchObject({ id: 'j1' });
      expect((await jobs.named('daily', 10)).map((job) => job.id)).toEqual(['j2', 'j1', 'j3']);
      expect((await jobs.named('daily', 2)).map((job) => job.id)).toEqual(['j2', 'j1']);
      expect(await jobs.named('hourly', 10)).toEqual([]);
    });

    it('refuses a job past maxPerOwner with conflict naming the limit; other owners are not counted', async () => {
      await jobs.create(cronJob('j1', 'a'), 2);
      await jobs.create(cronJob('j2', 'b'), 2);
      await expect(jobs.create(cronJob('j3', 'c'), 2)).rejects.toMatchObject({
        kind: 'conflict',
        details: { maxJobsPerOwner: 2 },
      });
      await jobs.create(cronJob('j4', 'c', { ownerId: 'bob' }), 2);
      expect((await jobs.list()).map((job) => job.id)).toEqual(['j1', 'j2', 'j4']);
      await jobs.remove('j1');
      await jobs.create(cronJob('j3', 'c'), 2);
    });

    it('pages jobs of every owner by name, then owner, after a name and owner', async () => {
      for (const [id, name, ownerId] of [
        ['j1', 'beta', 'bob'],
        ['j2', 'alpha', 'cat'],
        ['j3', 'alpha', 'ann'],
        ['j4', 'alpha', 'bob'],
      ]) {
        await jobs.create(cronJob(id ?? '', name ?? '', { ownerId: ownerId ?? '' }));
      }
      const keys = (records: JobRecord[]) => records.map((job) => `${job.name}/${job.ownerId}`);
      expect(keys(await jobs.page({ limit: 2 }))).toEqual(['alpha/ann', 'alpha/bob']);
      expect(keys(await jobs.page({ limit: 2, afterName: 'alpha', afterOwnerId: 'bob' }))).toEqual([
        'alpha/cat',
        'beta/bob',
      ]);
      expect(keys(await jobs.page({ limit: 5, afterName: 'alpha' }))).toEqual(['beta/bob']);
    });

    it('saves every field of a changed job', async () => {
      await jobs.create(cronJob('j1', 'daily'));
      const changed = cronJob('j1', 'renamed', {
        enabled: false,
        message: 'new',
        nextRunAtMs: null,
        lastRunAtMs: 900,
        lastError: 'boom',
        updatedAt: 950,
        schedule: { kind: 'interval', everyMs: 1_000, tz: 'UTC' },
      });
      await jobs.save(changed);
      expect(await jobs.get('j1')).toEqual(changed);
      expect(await jobs.byName('rpc-client', 'daily')).toBeUndefined();
    });

    it("keeps a heartbeat job's chat target (with and without a thread), changes it on save and clears it", async () => {
      const threaded = cronJob('j1', 'pulse', {
        heartbeat: { channelId: 'tg', chatId: '-100200', threadId: '17' },
      });
      const plain = cronJob('j2', 'beat', { heartbeat: { channelId: 'mail', chatId: 'ops@example.com' } });
      await jobs.create(threaded);
      await jobs.create(plain, 10);
      expect(await jobs.get('j1')).toEqual(threaded);
      expect(await jobs.byName('rpc-client', 'beat')).toEqual(plain);
      const moved = { ...threaded, heartbeat: { channelId: 'slack', chatId: 'C42' } };
      await jobs.save(moved);
      expect(await jobs.get('j1')).toEqual(moved);
      await jobs.save({ ...moved, heartbeat: null });
      expect((await jobs.get('j1'))?.heartbeat).toBeNull();
    });

    it('keeps run entries per job, newest first up to the limit, and removes them with the job', async () => {
      await jobs.create(cronJob('j1', 'a'));
      await jobs.create(cronJob('j2', 'b'));
      await jobs.appendRun(runEntry('j1', 10));
      await jobs.appendRun(
        runEntry('j1', 20, { status: 'skipped', summary: 'wake-gate: skipped', toolCalls: 1, estTurnsSaved: 1 }),
      );
      await jobs.appendRun(runEntry('j1', 30, { status: 'error', error: 'model failed' }));
      await jobs.appendRun(runEntry('j2', 15));
      expect(await jobs.runs('j1', 2)).toEqual([
        runEntry('j1', 30, { status: 'error', error: 'model failed' }),
        runEntry('j1', 20, { status: 'skipped', summary: 'wake-gate: skipped', toolCalls: 1, estTurnsSaved: 1 }),
      ]);
      expect(await jobs.remove('j1')).toBe(true);
      expect(await jobs.remove('j1')).toBe(false);
      expect(await jobs.runs('j1', 10)).toEqual([]);
      expect(await jobs.runs('j2', 10)).toEqual([runEntry('j2', 15)]);
    });
  });
}
