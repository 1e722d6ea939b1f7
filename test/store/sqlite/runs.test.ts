// The SQLite RunPort: the shared conformance cases plus what survives a reopen of the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ORPHANED_RUN_ERROR } from '../../../src/store/index.js';
import { createSqliteRunPort, MIGRATIONS, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { runningRun, runPortCases } from '../runs.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

runPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createSqliteRunPort(db), close };
});

describe('sqlite run port', () => {
  let dir: string;
  let path: string;
  let db: SqliteDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-runs-'));
    path = join(dir, 'gateway.db');
    db = openDatabase({ path });
  });
  afterEach(async () => {
    if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('marks runs left running by a dead process as orphaned after reopening the file', async () => {
    const before = createSqliteRunPort(db);
    await before.create(runningRun('run-live', 100));
    await before.create(runningRun('run-done', 100));
    await before.finish('run-done', {
      status: 'completed',
      completedAt: 120,
      response: 'ok',
      tokensUsed: null,
      costUsd: null,
      error: null,
    });
    db.close();

    db = openDatabase({ path });
    const after = createSqliteRunPort(db);
    expect((await after.get('run-live'))?.status).toBe('running');
    expect(await after.markOrphaned(await after.runningOwners(), 5_000)).toBe(1);
    expect(await after.get('run-live')).toMatchObject({
      status: 'orphaned',
      completedAt: 5_000,
      error: ORPHANED_RUN_ERROR,
    });
    expect(await after.get('run-done')).toMatchObject({ status: 'completed', completedAt: 120, error: null });
    expect(await after.markOrphaned(await after.runningOwners(), 6_000)).toBe(0);
  });

  it('gives runs recorded before owners existed no owner, so recovery treats them as gone', async () => {
    db.close();
    db = openDatabase({
      path: join(dir, 'old.db'),
      migrations: MIGRATIONS.filter((migration) => migration.version < 7),
    });
    db.prepare(
      `INSERT INTO runs (run_id, root_run_id, parent_key, session_key, agent_id, task, status, requested_by, started_at)
       VALUES ('old', 'old', NULL, 'default:a:subagent:old', 'default', 't', 'running', NULL, 1)`,
    ).run();
    db.close();
    db = openDatabase({ path: join(dir, 'old.db') });
    const runs = createSqliteRunPort(db);
    expect(await runs.get('old')).toMatchObject({ status: 'running', ownerInstance: null, heartbeatAt: null });
    expect(await runs.runningOwners()).toEqual([null]);
  });
});
