// The recorder keeps an open turn's records in memory and writes the turn as one row: as it stands at a flush while it
// is open (so a crash mid-turn leaves it unfinished), again whole when it ends; past its cap, records are counted.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRecorder, MAX_OPEN_TURNS, MAX_TURN_STEPS, type Recorder } from '../../src/obs/recorder.js';
import { createSqliteEvidencePort, openDatabase, type SqliteDatabase } from '../../src/store/sqlite/index.js';

const KEY = 'default:alice:ws';

describe('recorder', () => {
  let db: SqliteDatabase;
  let recorder: Recorder;
  const port = () => createSqliteEvidencePort(db);
  beforeEach(() => {
    db = openDatabase({ path: ':memory:' });
    recorder = createRecorder({ port: port() });
  });
  afterEach(async () => {
    await recorder.close();
    db.close();
  });

  const start = (traceId: string, startedAt = 1_000) =>
    recorder.startSession({
      traceId,
      sessionKey: KEY,
      agentId: 'default',
      channel: 'ws',
      startedAt,
      isSynthetic: false,
    });
  const record = (traceId: string, kind: string, ts: number, data: Record<string, unknown> = {}) =>
    recorder.trajectory({ sessionKey: KEY, traceId, kind, ts, data });
  const turnRows = () => db.prepare('SELECT trace_id, ended_at, json_array_length(steps) AS steps FROM turns').all();

  it('writes an open turn as it stands at a flush, then rewrites its one row when it ends', async () => {
    start('t1');
    record('t1', 'turn_start', 1_000);
    await recorder.flush();
    expect(turnRows()).toEqual([{ trace_id: 't1', ended_at: null, steps: 1 }]);
    expect(await port().sessionIndexOf(KEY)).toMatchObject([{ traceId: 't1', endReason: null, endedAt: null }]);

    record('t1', 'model_call', 1_001, { step: 1 });
    record('t1', 'turn_end', 1_002, { endReason: 'completed' });
    recorder.endSession('t1', { endReason: 'completed', degraded: false, endedAt: 1_003 });
    await recorder.flush();
    expect(turnRows()).toEqual([{ trace_id: 't1', ended_at: 1_003, steps: 3 }]);
    expect((await port().trajectoryOf(KEY)).map((entry) => [entry.seq, entry.kind])).toEqual([
      [1, 'turn_start'],
      [2, 'model_call'],
      [3, 'turn_end'],
    ]);
    expect(db.prepare('SELECT count(*) FROM loose_records').pluck().get()).toBe(0);
  });

  it('writes a turn still open by its timers alone, with no flush asked for and nothing else recorded', async () => {
    await recorder.close();
    recorder = createRecorder({ port: port(), flushIntervalMs: 5 });
    start('t1');
    record('t1', 'turn_start', 1_000);
    await vi.waitFor(() => expect(turnRows()).toEqual([{ trace_id: 't1', ended_at: null, steps: 1 }]));
  });

  it('writes the records of a turn opened with openTurn into its row, and alone once the turn was pushed out', async () => {
    const entry = (traceId: string) => ({
      traceId,
      sessionKey: KEY,
      agentId: 'default',
      channel: 'ws',
      startedAt: 1_000,
      isSynthetic: false,
    });
    const first = recorder.openTurn(entry('t0'));
    first.step('turn_start', 1_000, {});
    const second = recorder.openTurn(entry('t1'));
    second.step('turn_start', 1_000, {});
    second.step('turn_end', 1_001, { endReason: 'completed' });
    second.end({ endReason: 'completed', degraded: false, endedAt: 1_002 });
    // Room for a new turn is made by writing the oldest open one (t0) as it stands; its later records go on their own.
    for (let index = 2; index <= MAX_OPEN_TURNS; index += 1) recorder.startSession(entry(`t${index}`));
    first.step('turn_end', 1_003, { endReason: 'completed' });
    first.end({ endReason: 'completed', degraded: false, endedAt: 1_004 });
    await recorder.flush();
    const rows = db.prepare(
      "SELECT trace_id, ended_at, json_array_length(steps) AS steps FROM turns WHERE trace_id IN ('t0', 't1') ORDER BY trace_id",
    );
    expect(rows.all()).toEqual([
      { trace_id: 't0', ended_at: 1_004, steps: 2 },
      { trace_id: 't1', ended_at: 1_002, steps: 2 },
    ]);
    const t0 = (await port().trajectoryOf(KEY)).filter((entry) => entry.traceId === 't0');
    expect(t0.map((entry) => entry.kind)).toEqual(['turn_start', 'turn_end']);
  });

  it('writes a record of no open turn on its own, read in its session after the turn it followed', async () => {
    start('t1');
    record('t1', 'turn_start', 1_000);
    recorder.endSession('t1', { endReason: 'completed', degraded: false, endedAt: 1_001 });
    record('t1', 'cron_wake_gate', 1_002, { wake: true });
    await recorder.flush();
    expect(turnRows()).toEqual([{ trace_id: 't1', ended_at: 1_001, steps: 1 }]);
    expect((await port().trajectoryOf(KEY)).map((entry) => [entry.seq, entry.kind])).toEqual([
      [1, 'turn_start'],
      [2, 'cron_wake_gate'],
    ]);
  });

  it('keeps at most its cap of records per turn, always its turn_end, and says how many it dropped', async () => {
    start('t1');
    for (let index = 0; index < MAX_TURN_STEPS + 5; index += 1) record('t1', 'tool_call', 1_000 + index);
    record('t1', 'turn_end', 5_000);
    recorder.endSession('t1', { endReason: 'completed', degraded: false, endedAt: 5_001 });
    await recorder.flush();
    const trajectory = await port().trajectoryOf(KEY);
    expect(trajectory).toHaveLength(MAX_TURN_STEPS + 2);
    expect(trajectory.slice(-2).map((entry) => [entry.kind, entry.data])).toEqual([
      ['steps_capped', { cap: MAX_TURN_STEPS, dropped: 5 }],
      ['turn_end', {}],
    ]);
  });
});
