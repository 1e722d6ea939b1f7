// Migration 23 on evidence, on both backends: a database holding old-shape evidence (session_index rows and trajectory rows with seqs)
// upgraded in place reads its turns, trajectory and
// obs.explain report exactly as the same activity recorded now does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionLoader } from '../../src/obs/evidence/index.js';
import { explainSession } from '../../src/obs/explain/index.js';
import { createRecorder } from '../../src/obs/recorder.js';
import type { EvidencePort, EvidenceWrite, TrajectoryRecord } from '../../src/store/index.js';
import {
  createPool,
  createPostgresEvidencePort,
  migratePostgres,
  POSTGRES_LEGACY_MIGRATIONS,
  POSTGRES_MIGRATIONS,
  type PgPool,
} from '../../src/store/postgres/index.js';
import {
  createSqliteEvidencePort,
  openDatabase,
  SQLITE_LEGACY_MIGRATIONS,
  type SqliteDatabase,
} from '../../src/store/sqlite/index.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';

const KEY = 'default:alice:ws';
const OTHER = 'default:bob:ws';
const DAY = '2026-01-15';
const T0 = Date.UTC(2026, 0, 15, 9);

interface Turn {
  traceId: string;
  sessionKey: string;
  startedAt: number;
  rootRunId?: string;
  end?: { endReason: string; degraded: boolean; endedAt: number };
  records: [kind: string, data: Record<string, unknown>][];
}

const toolTurn: Turn = {
  traceId: 't1',
  sessionKey: KEY,
  startedAt: T0,
  rootRunId: 'run-1',
  end: { endReason: 'completed_with_tool_errors', degraded: true, endedAt: T0 + 40 },
  records: [
    ['turn_start', { agentId: 'default', channel: 'ws' }],
    ['model_call', { step: 1, provider: 'local', model: 'm', inputTokens: 9, outputTokens: 3, costUsd: 0.001 }],
    ['tool_call', { step: 1, toolName: 'fetch', ok: false, errorKind: 'timeout', resultBytes: 9, durationMs: 30 }],
    ['turn_end', { finishReason: 'stop', endReason: 'completed_with_tool_errors', steps: 1, toolFailures: 1 }],
  ],
};
/** Still open: its trajectory has no turn_end, so obs.explain reads it as the open turn. */
const openTurn: Turn = {
  traceId: 't2',
  sessionKey: KEY,
  startedAt: T0 + 100,
  records: [
    ['turn_start', { agentId: 'default', channel: 'ws' }],
    ['context_budget', { step: 1, windowTokens: 1000, assembledInputTokens: 40, verdict: 'fits' }],
  ],
};
const otherTurn: Turn = {
  traceId: 't3',
  sessionKey: OTHER,
  startedAt: T0 + 50,
  end: { endReason: 'completed', degraded: false, endedAt: T0 + 60 },
  records: [
    ['turn_start', { agentId: 'default', channel: 'ws' }],
    ['turn_end', { finishReason: 'stop', endReason: 'completed', steps: 1 }],
  ],
};
const TURNS = [toolTurn, otherTurn, openTurn];
/** A record of no indexed turn (a cron fire's gate, recorded after its turn), later than every turn's steps. */
const LATE: TrajectoryRecord = {
  sessionKey: KEY,
  traceId: 'cron-1',
  kind: 'cron_wake_gate',
  ts: T0 + 500,
  data: { jobId: 'job-1', wake: true, durationMs: 3, toolCalls: 0, estTurnsSaved: 0 },
};

const recordsOf = (turn: Turn): TrajectoryRecord[] =>
  turn.records.map(([kind, data], index) => ({
    sessionKey: turn.sessionKey,
    traceId: turn.traceId,
    kind,
    ts: turn.startedAt + index,
    data,
  }));

/** The activity as rows of the schema before migration 23: index rows, and records with seqs per session in append order. */
function oldShape(): { index: unknown[][]; records: unknown[][] } {
  const index = TURNS.map((turn) => [
    turn.traceId,
    turn.sessionKey,
    turn.rootRunId ?? null,
    turn.startedAt,
    DAY,
    turn.end?.endReason ?? null,
    turn.end?.degraded === true,
    turn.end?.endedAt ?? null,
  ]);
  const seqs = new Map<string, number>();
  const records = [...TURNS.flatMap(recordsOf), LATE].map((item) => {
    const seq = (seqs.get(item.sessionKey) ?? 0) + 1;
    seqs.set(item.sessionKey, seq);
    return [item.sessionKey, item.traceId, seq, item.ts, item.kind, JSON.stringify(item.data)];
  });
  return { index, records };
}
const OLD_INDEX = `INSERT INTO session_index (trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day, synthetic, end_reason, degraded, ended_at)
  VALUES ($1, $2, 'default', 'ws', NULL, $3, $4, $5, false, $6, $7, $8)`;
const OLD_RECORD =
  'INSERT INTO trajectory (session_key, trace_id, seq, ts, kind, data) VALUES ($1, $2, $3, $4, $5, $6)';

function writeOldShapeSqlite(db: SqliteDatabase): void {
  const { index, records } = oldShape();
  const asSqlite = (text: string) => text.replace(/\$\d+/g, '?').replace('false', '0');
  const insertIndex = db.prepare(asSqlite(OLD_INDEX));
  const insertRecord = db.prepare(asSqlite(OLD_RECORD));
  for (const row of index) insertIndex.run(...row.map((cell) => (typeof cell === 'boolean' ? Number(cell) : cell)));
  for (const row of records) insertRecord.run(...row);
}

async function writeOldShapePostgres(pool: PgPool): Promise<void> {
  const { index, records } = oldShape();
  for (const row of index) await pool.query(OLD_INDEX, row);
  for (const row of records) await pool.query(OLD_RECORD, row);
}

/** The same activity through the evidence port's writes, one batch per turn. */
function oldWrites(): EvidenceWrite[][] {
  const batches = TURNS.map((turn): EvidenceWrite[] => [
    {
      type: 'session_start',
      entry: {
        traceId: turn.traceId,
        sessionKey: turn.sessionKey,
        agentId: 'default',
        channel: 'ws',
        startedAt: turn.startedAt,
        isSynthetic: false,
        ...(turn.rootRunId === undefined ? {} : { rootRunId: turn.rootRunId }),
      },
    },
    ...recordsOf(turn).map((record): EvidenceWrite => ({ type: 'trajectory', record })),
    ...(turn.end === undefined ? [] : [{ type: 'session_end' as const, end: { traceId: turn.traceId, ...turn.end } }]),
  ]);
  return [...batches, [{ type: 'trajectory', record: LATE }]];
}

async function reads(port: EvidencePort) {
  const loader = createSessionLoader({ port, flush: async () => undefined });
  return {
    explain: await explainSession(loader, { sessionKey: KEY }),
    byTrace: await explainSession(loader, { traceId: 't1' }),
    byRoot: await explainSession(loader, { rootRunId: 'run-1' }),
    trajectory: await port.trajectoryOf(KEY),
    newest: await port.trajectoryOf(KEY, { newest: 2 }),
    count: await port.trajectoryCountOf(KEY),
    index: await port.sessionIndexOf(KEY),
    other: await port.trajectoryOf(OTHER),
    budgets: await port.trajectoryOfKind({ kind: 'context_budget', newest: 5 }),
  };
}

/** The migrated file's answers: seqs in append order, the open turn last, the late record after it. */
function expectMigrated(migrated: Awaited<ReturnType<typeof reads>>): void {
  expect(migrated.trajectory.map((record) => [record.seq, record.traceId, record.kind])).toEqual([
    [1, 't1', 'turn_start'],
    [2, 't1', 'model_call'],
    [3, 't1', 'tool_call'],
    [4, 't1', 'turn_end'],
    [5, 't2', 'turn_start'],
    [6, 't2', 'context_budget'],
    [7, 'cron-1', 'cron_wake_gate'],
  ]);
  expect(migrated.newest.map((record) => record.seq)).toEqual([6, 7]);
  expect(migrated.count).toBe(7);
  expect(migrated.explain).toMatchObject({ sessionKey: KEY, traceId: 't2', timing: { turnCount: 2 } });
  expect(migrated.byTrace).toEqual(migrated.explain);
  expect(migrated.byRoot).toEqual(migrated.explain);
}

/** The same activity as a turn records it now: through the recorder, one row per turn. */
async function recordNow(port: EvidencePort): Promise<void> {
  const recorder = createRecorder({ port });
  for (const turn of TURNS) {
    recorder.startSession({
      traceId: turn.traceId,
      sessionKey: turn.sessionKey,
      agentId: 'default',
      channel: 'ws',
      startedAt: turn.startedAt,
      isSynthetic: false,
      ...(turn.rootRunId === undefined ? {} : { rootRunId: turn.rootRunId }),
    });
    recordsOf(turn).forEach((record) => recorder.trajectory(record));
    if (turn.end !== undefined) recorder.endSession(turn.traceId, turn.end);
  }
  recorder.trajectory(LATE);
  await recorder.close();
}

const STEP_COUNTS = [
  { trace_id: 't1', n: 4 },
  { trace_id: 't2', n: 2 },
  { trace_id: 't3', n: 2 },
];

describe('evidence migration 23 on SQLite', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('moves session_index and trajectory rows into turns, and reads them as the same activity recorded now', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-evidence-migration-'));
    dirs.push(dir);
    const path = join(dir, 'gateway.db');
    const legacy = openDatabase({ path, migrations: SQLITE_LEGACY_MIGRATIONS });
    writeOldShapeSqlite(legacy);
    legacy.close();

    const upgraded = openDatabase({ path });
    const current = openDatabase({ path: ':memory:' });
    const recorded = openDatabase({ path: ':memory:' });
    try {
      // The old rows now live in the new shape: one row per turn holding its steps; the late record outside them.
      const steps = upgraded.prepare('SELECT trace_id, json_array_length(steps) AS n FROM turns ORDER BY trace_id');
      expect(steps.all()).toEqual(STEP_COUNTS);
      expect(upgraded.prepare('SELECT trace_id FROM loose_records').pluck().all()).toEqual(['cron-1']);
      const migrated = await reads(createSqliteEvidencePort(upgraded));
      expectMigrated(migrated);
      // The old names still read for SQL run by hand, seq included.
      const view = upgraded.prepare(
        'SELECT seq, trace_id AS traceId, kind FROM trajectory WHERE session_key = ? ORDER BY seq',
      );
      expect(view.all(KEY)).toEqual(migrated.trajectory.map(({ seq, traceId, kind }) => ({ seq, traceId, kind })));
      expect(upgraded.prepare('SELECT count(*) FROM session_index').pluck().get()).toBe(3);

      // The same activity written through the port's record-by-record writes, on a new file.
      const port = createSqliteEvidencePort(current);
      for (const batch of oldWrites()) await port.append(batch);
      expect(await reads(port)).toEqual(migrated);

      await recordNow(createSqliteEvidencePort(recorded));
      expect(await reads(createSqliteEvidencePort(recorded))).toEqual(migrated);
    } finally {
      upgraded.close();
      current.close();
      recorded.close();
    }
  });
});

describe.skipIf(postgresBinDir === undefined)(
  `evidence migration 23 on PostgreSQL${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();

    it('moves session_index and trajectory rows into turns, and reads them as the same activity recorded now', async () => {
      const databases = [
        await server().freshDatabase({ empty: true }),
        await server().freshDatabase(),
        await server().freshDatabase(),
      ];
      const [legacy, current, recorded] = databases.map((database) =>
        createPool({ url: database.url, maxConnections: 2 }),
      );
      try {
        if (legacy === undefined || current === undefined || recorded === undefined) throw new Error('no pools');
        await migratePostgres(legacy, POSTGRES_LEGACY_MIGRATIONS);
        await writeOldShapePostgres(legacy);
        await migratePostgres(legacy, POSTGRES_MIGRATIONS);
        const steps = await legacy.query(
          'SELECT trace_id, json_array_length(steps::json) AS n FROM turns ORDER BY trace_id',
        );
        expect(steps.rows).toEqual(STEP_COUNTS);
        const migrated = await reads(createPostgresEvidencePort(legacy));
        expectMigrated(migrated);
        const view = await legacy.query(
          'SELECT seq, trace_id AS "traceId", kind FROM trajectory WHERE session_key = $1 ORDER BY seq',
          [KEY],
        );
        expect(view.rows).toEqual(migrated.trajectory.map(({ seq, traceId, kind }) => ({ seq, traceId, kind })));

        const port = createPostgresEvidencePort(current);
        for (const batch of oldWrites()) await port.append(batch);
        expect(await reads(port)).toEqual(migrated);

        await recordNow(createPostgresEvidencePort(recorded));
        expect(await reads(createPostgresEvidencePort(recorded))).toEqual(migrated);
      } finally {
        for (const pool of [legacy, current, recorded]) await pool?.end();
        for (const database of databases) await database.drop();
      }
    });
  },
);
