// obs.explain through the SQLite loader: sessionKey, traceId and rootRunId give the same report; misses give a marker.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSessionLoader } from '../../../src/obs/evidence/index.js';
import { explainSession } from '../../../src/obs/explain/index.js';
import { createRecorder, type Recorder } from '../../../src/obs/recorder.js';
import {
  createSqliteEvidencePort,
  createSqliteRunPort,
  openDatabase,
  type SqliteDatabase,
} from '../../../src/store/sqlite/index.js';

const KEY = 'default:alice:ws';

describe('obs.explain session loader', () => {
  let db: SqliteDatabase;
  let recorder: Recorder;
  beforeEach(() => {
    db = openDatabase({ path: ':memory:' });
    recorder = createRecorder({ port: createSqliteEvidencePort(db) });
  });
  afterEach(async () => {
    await recorder.close();
    db.close();
  });

  function recordTurn(
    traceId: string,
    sessionKey: string,
    startedAt: number,
    options: { rootRunId?: string; isSynthetic?: boolean; messageId?: string } = {},
  ) {
    recorder.startSession({
      traceId,
      sessionKey,
      agentId: 'default',
      channel: 'ws',
      startedAt,
      isSynthetic: options.isSynthetic ?? false,
      ...(options.rootRunId === undefined ? {} : { rootRunId: options.rootRunId }),
      ...(options.messageId === undefined ? {} : { messageId: options.messageId }),
    });
    const record = (kind: string, data: Record<string, unknown>) =>
      recorder.trajectory({ sessionKey, traceId, kind, ts: startedAt, data });
    record('turn_start', { agentId: 'default', channel: 'ws' });
    record('tool_call', {
      step: 1,
      toolName: 'fetch',
      ok: false,
      errorKind: 'timeout',
      resultDigest: 'sha256:1',
      resultBytes: 9,
      durationMs: 30_000,
    });
    record('turn_end', {
      finishReason: 'stop',
      endReason: 'completed_with_tool_errors',
      steps: 1,
      inputTokens: 5,
      outputTokens: 5,
      costUsd: 0,
      toolFailures: 1,
      durationMs: 10,
    });
    recorder.endSession(traceId, { endReason: 'completed_with_tool_errors', degraded: true, endedAt: startedAt + 10 });
  }

  const explain = (params: Parameters<typeof explainSession>[1]) =>
    explainSession(createSessionLoader({ port: createSqliteEvidencePort(db), flush: () => recorder.flush() }), params);

  it('gives byte-identical reports for sessionKey, traceId, synthetic rootRunId and real rootRunId', async () => {
    recordTurn('t1', KEY, 1_000, { rootRunId: 'run-root-1' });
    recordTurn('t2', KEY, 2_000, { rootRunId: 'run-root-1' });
    const bySession = JSON.stringify(await explain({ sessionKey: KEY }));
    expect(JSON.parse(bySession)).toMatchObject({
      sessionKey: KEY,
      traceId: 't2',
      timing: { turnCount: 2 },
      likelyRootCause: { code: 'completed_with_tool_errors' },
    });
    expect(JSON.stringify(await explain({ traceId: 't1' }))).toBe(bySession);
    expect(JSON.stringify(await explain({ rootRunId: `root-session-${KEY}` }))).toBe(bySession);
    expect(JSON.stringify(await explain({ rootRunId: 'run-root-1' }))).toBe(bySession);
  });

  it('finds a real root through the durable run table and renders its spawn tree', async () => {
    recordTurn('t1', 'default:alice:subagent:r1', 1_000);
    await createSqliteRunPort(db).create({
      runId: 'r1',
      rootRunId: 'r1',
      kind: 'spawn',
      parentKey: KEY,
      sessionKey: 'default:alice:subagent:r1',
      agentId: 'default',
      task: 't',
      status: 'completed',
      requestedBy: null,
      startedAt: 900,
      completedAt: 1_100,
      response: null,
      tokensUsed: null,
      costUsd: null,
      error: null,
      ownerInstance: null,
      heartbeatAt: null,
    });
    const report = await explain({ rootRunId: 'r1' });
    expect(report).toMatchObject({
      sessionKey: 'default:alice:subagent:r1',
      spawnTree: { rootRunId: 'r1', runs: [{ runId: 'r1', depth: 0 }] },
    });
  });

  it('returns the session_not_found marker naming the missed reference', async () => {
    recordTurn('t1', KEY, 1_000);
    expect(await explain({ traceId: 'nope' })).toEqual({
      schemaVersion: 1,
      marker: 'session_not_found',
      reference: { kind: 'traceId', value: 'nope' },
      detail: "No recorded turn has traceId 'nope'.",
      suggestedNextSteps: [expect.any(String)],
    });
    expect(await explain({ rootRunId: 'cron-job-7' })).toMatchObject({
      marker: 'session_not_found',
      reference: { kind: 'rootRunId', value: 'cron-job-7' },
    });
    expect(await explain({ rootRunId: 'root-session-default:nobody:ws' })).toMatchObject({
      marker: 'session_not_found',
      reference: { kind: 'rootRunId', value: 'root-session-default:nobody:ws' },
    });
    expect(await explain({ sessionKey: 'default:nobody:ws' })).toMatchObject({
      marker: 'session_not_found',
      reference: { kind: 'sessionKey' },
    });
    expect(await explain({ sessionKey: KEY, traceId: 'nope' })).toMatchObject({
      marker: 'session_not_found',
      reference: { kind: 'traceId', value: 'nope' },
    });
  });

  it('excludes synthetic sessions unless includeSynthetic is true', async () => {
    recordTurn('t1', 'default:probe:ws', 1_000, { isSynthetic: true });
    expect(await explain({ sessionKey: 'default:probe:ws' })).toMatchObject({
      marker: 'session_not_found',
      detail: expect.stringContaining('synthetic'),
    });
    expect(await explain({ sessionKey: 'default:probe:ws', includeSynthetic: true })).toMatchObject({
      sessionKey: 'default:probe:ws',
    });
  });

  it('sees records still buffered in the recorder', async () => {
    recordTurn('t1', KEY, 1_000);
    expect(await explain({ traceId: 't1' })).toMatchObject({ failures: [{ toolName: 'fetch', errorKind: 'timeout' }] });
  });
});
