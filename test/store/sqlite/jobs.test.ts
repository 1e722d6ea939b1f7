// The SQLite JobPort: the shared conformance cases plus what survives a reopen of the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, createSqliteJobPort, MIGRATIONS, openDatabase } from '../../../src/store/sqlite/index.js';
import { cronJob, jobPortCases } from '../jobs.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

jobPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createSqliteJobPort(db), close };
});

describe('sqlite job port', () => {
  let dir = '';
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps jobs and their run entries across a reopen of the file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-jobs-'));
    const path = join(dir, 'gateway.db');
    const first = openDatabase({ path });
    await createSqliteJobPort(first).create(cronJob('j1', 'daily'));
    await createSqliteJobPort(first).appendRun({
      ts: 5,
      jobId: 'j1',
      status: 'ok',
      durationMs: 3,
      summary: null,
      error: null,
      toolCalls: null,
      estTurnsSaved: null,
      rootRunId: 'r1',
    });
    first.close();
    const second = openDatabase({ path });
    const jobs = createSqliteJobPort(second);
    expect(await jobs.get('j1')).toEqual(cronJob('j1', 'daily'));
    expect((await jobs.runs('j1', 5)).map((run) => run.rootRunId)).toEqual(['r1']);
    second.close();
  });

  it('keeps the jobs of a file from before names were unique per owner, and lets another owner take a used name', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-jobs-'));
    const path = join(dir, 'gateway.db');
    const before = openDatabase({ path, migrations: MIGRATIONS.filter((migration) => migration.version < 20) });
    // Rows as that schema held them (today's port writes columns later migrations added).
    before
      .prepare(
        `INSERT INTO jobs (id, name, owner_id, agent_id, message, kind, expr, tz, every_ms, at_ms, enabled, wake_gate,
           next_run_at, last_run_at, last_error, created_at, updated_at)
         VALUES ('j1', 'daily', 'ann', NULL, 'check the inbox', 'cron', '0 9 * * *', 'Europe/Berlin', NULL, NULL, 1, NULL,
           1000, NULL, NULL, 100, 100)`,
      )
      .run();
    before
      .prepare(
        `INSERT INTO job_runs (ts, job_id, status, duration_ms, summary, error, tool_calls, est_turns_saved, root_run_id)
         VALUES (5, 'j1', 'ok', 3, NULL, NULL, NULL, NULL, 'r1')`,
      )
      .run();
    expect(applyMigrations(before, MIGRATIONS)).toContain(20);
    const jobs = createSqliteJobPort(before);
    expect(await jobs.byName('ann', 'daily')).toEqual(cronJob('j1', 'daily', { ownerId: 'ann' }));
    await jobs.create(cronJob('j2', 'daily', { ownerId: 'bob' }));
    await expect(jobs.create(cronJob('j3', 'daily', { ownerId: 'ann' }))).rejects.toMatchObject({
      kind: 'conflict',
      details: { param: 'name' },
    });
    expect((await jobs.runs('j1', 5)).map((run) => run.rootRunId)).toEqual(['r1']);
    before.close();
  });
});
