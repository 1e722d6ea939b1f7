// obs.fleet.health through the SQLite loader: the window, synthetic exclusion, posture, signals and the durable run table.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFleetLoader } from '../../../src/obs/evidence/index.js';
import { assembleFleetHealth } from '../../../src/obs/fleet/index.js';
import { createBatchQueue, type BatchQueue } from '../../../src/obs/batch-queue.js';
import { createHealthSignalRecorder } from '../../../src/obs/health-signals.js';
import { createRecorder, type Recorder } from '../../../src/obs/recorder.js';
import type { ObsWrite } from '../../../src/store/index.js';
import {
  createSqliteEvidencePort,
  createSqliteObsPort,
  createSqliteRunPort,
  openDatabase,
  type SqliteDatabase,
} from '../../../src/store/sqlite/index.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 0, 15, 12);

describe('obs.fleet.health loader', () => {
  let db: SqliteDatabase;
  let recorder: Recorder;
  let writer: BatchQueue<ObsWrite>;
  beforeEach(() => {
    db = openDatabase({ path: ':memory:' });
    recorder = createRecorder({ port: createSqliteEvidencePort(db) });
    const obsPort = createSqliteObsPort(db);
    writer = createBatchQueue<ObsWrite>({ write: (batch) => obsPort.append(batch) });
  });
  afterEach(async () => {
    await writer.close();
    await recorder.close();
    db.close();
  });

  function turn(traceId: string, startedAt: number, endReason: string, isSynthetic = false) {
    const sessionKey = `default:${traceId}:ws`;
    recorder.startSession({ traceId, sessionKey, agentId: 'default', channel: 'ws', startedAt, isSynthetic });
    recorder.trajectory({
      sessionKey,
      traceId,
      kind: 'tool_call',
      ts: startedAt,
      data: { toolName: 'fetch', ok: false, errorKind: 'timeout' },
    });
    recorder.trajectory({ sessionKey, traceId, kind: 'model_call', ts: startedAt, data: { inputTokens: 1 } });
    recorder.trajectory({
      sessionKey,
      traceId,
      kind: 'turn_end',
      ts: startedAt,
      data: { endReason, inputTokens: 10, outputTokens: 5 },
    });
    recorder.usage({
      ts: startedAt,
      agentId: 'default',
      sessionKey,
      provider: 'local',
      model: 'm',
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.5,
    });
    recorder.endSession(traceId, { endReason, degraded: endReason !== 'completed', endedAt: startedAt + 1 });
  }

  const load = (sinceHours: number, hasDurableRuns = false) =>
    createFleetLoader({
      port: createSqliteEvidencePort(db),
      flush: async () => {
        await recorder.flush();
        await writer.flush();
      },
      hasDurableRuns,
    }).load({ nowMs: NOW, sinceHours });

  it('reads the window only, without synthetic sessions, and only the kinds the report needs', async () => {
    turn('in', NOW - 2 * HOUR, 'timeout');
    turn('old', NOW - 30 * HOUR, 'error');
    turn('probe', NOW - HOUR, 'error', true);
    const evidence = await load(24);
    expect(evidence.sessions.map((row) => row.traceId)).toEqual(['in']);
    expect(evidence.trajectory.map((record) => record.kind).sort()).toEqual(['tool_call', 'turn_end']);
    expect(evidence.usage).toEqual([
      {
        agentId: 'default',
        provider: 'local',
        model: 'm',
        calls: 2,
        inputTokens: 20,
        outputTokens: 10,
        cacheReadTokens: 0,
        costUsd: 1,
      },
    ]);
    expect((await load(48)).sessions.map((row) => row.traceId)).toEqual(['old', 'in']);
    const report = assembleFleetHealth(evidence);
    expect(report).toMatchObject({
      windowHours: 24,
      sessions: { total: 1, degraded: 1 },
      degradedByCause: { timeout: 1 },
      topErrorKinds: [{ kind: 'timeout', count: 1 }],
    });
    expect(report.autonomy).toBeUndefined();
  });

  it('takes the latest posture row whatever its age, and windowed signals', async () => {
    const signals = createHealthSignalRecorder({ queue: writer, now: () => NOW });
    signals.record({
      kind: 'config_posture',
      ts: NOW - 100 * HOUR,
      data: { providers: [{ provider: 'old', configuredWindowTokens: 10, servedWindowTokens: 5 }] },
    });
    signals.record({
      kind: 'config_posture',
      ts: NOW - 50 * HOUR,
      data: { providers: [{ provider: 'local', configuredWindowTokens: 10, servedWindowTokens: 5 }] },
    });
    signals.record({ kind: 'voice', ts: NOW - HOUR, data: { outcome: 'failed', errorKind: 'network' } });
    signals.record({ kind: 'voice', ts: NOW - 25 * HOUR, data: { outcome: 'failed', errorKind: 'network' } });
    signals.record({ kind: 'session_rebase', ts: NOW - HOUR, severity: 'error' });
    const evidence = await load(24);
    expect(evidence.latestPosture?.data).toEqual({
      providers: [{ provider: 'local', configuredWindowTokens: 10, servedWindowTokens: 5 }],
    });
    expect(evidence.signals.map((entry) => [entry.kind, entry.severity])).toEqual([
      ['voice', 'info'],
      ['session_rebase', 'info'],
    ]);
    expect(assembleFleetHealth(evidence).likelyRootCause).toMatchObject({
      code: 'fleet_config_posture',
      detail: expect.stringContaining('local'),
    });
  });

  it('folds rows whose JSON is malformed to zero instead of failing', async () => {
    turn('in', NOW - HOUR, 'completed');
    await recorder.flush();
    db.prepare(
      "INSERT INTO health_signals (ts, kind, severity, data) VALUES (?, 'config_posture', 'info', '{not json')",
    ).run(NOW - HOUR);
    db.prepare("INSERT INTO health_signals (ts, kind, severity, data) VALUES (?, 'voice', 'info', '[1,2')").run(
      NOW - HOUR,
    );
    db.prepare(
      "INSERT INTO trajectory (session_key, trace_id, seq, ts, kind, data) VALUES ('default:in:ws', 'in', 99, ?, 'tool_call', 'nope')",
    ).run(NOW);
    const report = assembleFleetHealth(await load(24));
    expect(report.findings).toEqual([]);
    expect(report.toolStats).toEqual({ fetch: { ok: 0, failed: 1, topErrorKind: 'timeout' } });
  });

  it('reads the durable run table only when it is wired', async () => {
    await createSqliteRunPort(db).create({
      runId: 'r1',
      rootRunId: 'r1',
      kind: 'spawn',
      parentKey: null,
      sessionKey: 'default:x:sub',
      agentId: 'default',
      task: 't',
      status: 'orphaned',
      requestedBy: null,
      startedAt: NOW - HOUR,
      completedAt: null,
      response: null,
      tokensUsed: null,
      costUsd: 0.2,
      error: null,
      ownerInstance: null,
      heartbeatAt: null,
    });
    expect((await load(24)).runs).toBeUndefined();
    const report = assembleFleetHealth(await load(24, true));
    expect(report.autonomy).toMatchObject({
      runs: { total: 1, degraded: 1, degradedRate: 1 },
      orphaned: 1,
      costUsd: 0.2,
      worstRootRunId: 'r1',
    });
    expect(report.likelyRootCause.code).toBe('fleet_autonomy_degradation');
  });
});
