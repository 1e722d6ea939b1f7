// The SQLite RunStore: durable sub-agent runs, their outcomes, and orphan recovery after a restart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/sessions/types.js';
import { createSqliteRunStore, openDatabase, ORPHANED_RUN_ERROR, type SqliteDatabase } from '../../src/store/index.js';

function running(runId: string, startedAt: number): RunRecord {
  return {
    runId, rootRunId: runId, parentKey: 'default:alice:ws', sessionKey: `default:alice:subagent:${runId}`,
    agentId: 'default', task: 'summarise', status: 'running', requestedBy: 'rpc-client', startedAt,
    completedAt: null, response: null, tokensUsed: null, costUsd: null, error: null,
  };
}

describe('sqlite run store', () => {
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

  it('creates a running run and reads it back', () => {
    const runs = createSqliteRunStore(db);
    runs.create(running('run-1', 100));
    expect(runs.get('run-1')).toEqual(running('run-1', 100));
    expect(runs.get('nope')).toBeUndefined();
  });

  it('finishes a run with its response, tokens, cost and error', () => {
    const runs = createSqliteRunStore(db);
    runs.create(running('run-1', 100));
    runs.create(running('run-2', 200));
    runs.finish('run-1', { status: 'completed', completedAt: 150, response: 'done', tokensUsed: { input: 10, output: 5, total: 15 }, costUsd: 0.25, error: null });
    runs.finish('run-2', { status: 'failed', completedAt: 250, response: null, tokensUsed: null, costUsd: null, error: 'model exploded' });
    expect(runs.get('run-1')).toMatchObject({ status: 'completed', completedAt: 150, response: 'done', tokensUsed: { input: 10, output: 5, total: 15 }, costUsd: 0.25, error: null });
    expect(runs.get('run-2')).toMatchObject({ status: 'failed', completedAt: 250, tokensUsed: null, error: 'model exploded' });
    expect(() => runs.finish('missing', { status: 'failed', completedAt: 1, response: null, tokensUsed: null, costUsd: null, error: 'x' }))
      .toThrow(expect.objectContaining({ kind: 'not_found' }));
  });

  it('lists runs newest first, by status and start time', () => {
    const runs = createSqliteRunStore(db);
    runs.create(running('run-1', 100));
    runs.create(running('run-2', 200));
    runs.create(running('run-3', 300));
    runs.finish('run-2', { status: 'completed', completedAt: 210, response: 'ok', tokensUsed: null, costUsd: null, error: null });
    expect(runs.list({}).map((run) => run.runId)).toEqual(['run-3', 'run-2', 'run-1']);
    expect(runs.list({ status: 'running' }).map((run) => run.runId)).toEqual(['run-3', 'run-1']);
    expect(runs.list({ sinceMs: 200 }).map((run) => run.runId)).toEqual(['run-3', 'run-2']);
    expect(runs.list({ status: 'completed', sinceMs: 250 })).toEqual([]);
  });

  it('marks runs left running by a dead process as orphaned after reopening the file', () => {
    const before = createSqliteRunStore(db);
    before.create(running('run-live', 100));
    before.create(running('run-done', 100));
    before.finish('run-done', { status: 'completed', completedAt: 120, response: 'ok', tokensUsed: null, costUsd: null, error: null });
    db.close();

    db = openDatabase({ path });
    const after = createSqliteRunStore(db);
    expect(after.get('run-live')?.status).toBe('running');
    expect(after.markUnfinishedOrphaned(5_000)).toBe(1);
    expect(after.get('run-live')).toMatchObject({ status: 'orphaned', completedAt: 5_000, error: ORPHANED_RUN_ERROR });
    expect(after.get('run-done')).toMatchObject({ status: 'completed', completedAt: 120, error: null });
    expect(after.markUnfinishedOrphaned(6_000)).toBe(0);
  });
});
