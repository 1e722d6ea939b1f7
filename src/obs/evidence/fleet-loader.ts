// Reads a window's evidence for obs.fleet.health from SQLite (the only I/O) and returns it as plain records.
import type { SqliteDatabase } from '../../store/index.js';
import { SIGNAL_KIND, TRAJECTORY_KIND } from './kinds.js';
import { num } from './read.js';
import type { FleetEvidence, UsageEvidence } from './records.js';
import {
  INDEX_COLUMNS, RUN_COLUMNS, SIGNAL_COLUMNS, toIndexEvidence, toRunEvidence, toSignalEvidence, toTrajectoryEvidence,
  type IndexRow, type RunRow, type SignalRow, type TrajectoryRow,
} from './rows.js';

/** Row caps per input; a capped input is listed in the report's truncations[]. */
export const FLEET_ROW_CAPS = { sessions: 50_000, trajectory: 200_000, signals: 100_000, runs: 50_000 } as const;

/** The trajectory kinds the fleet report reads. */
const FLEET_KINDS = [TRAJECTORY_KIND.toolCall, TRAJECTORY_KIND.breaker, TRAJECTORY_KIND.turnEnd, TRAJECTORY_KIND.modelError];

export interface FleetLoaderDeps {
  db: SqliteDatabase;
  flush?: () => Promise<void>;
  /** Whether the crash-surviving run table is part of this process; false (offline CLI) leaves out the autonomy block. */
  hasDurableRuns: boolean;
}

export interface FleetLoader {
  load(window: { nowMs: number; sinceHours: number }): Promise<FleetEvidence>;
}

interface UsageRow {
  agent_id: string;
  provider: string;
  model: string;
  calls: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cost_usd: number | null;
}

export function createFleetLoader({ db, flush, hasDurableRuns }: FleetLoaderDeps): FleetLoader {
  const sessions = db.prepare<[number, number, number], IndexRow>(
    `SELECT ${INDEX_COLUMNS} FROM session_index WHERE started_at >= ? AND started_at <= ? AND synthetic = 0 ORDER BY started_at, trace_id LIMIT ?`);
  const sessionCount = db.prepare<[number, number], { n: number }>('SELECT COUNT(*) AS n FROM session_index WHERE started_at >= ? AND started_at <= ? AND synthetic = 0');
  const kindList = FLEET_KINDS.map((kind) => `'${kind}'`).join(', ');
  const trajectoryFrom = `FROM trajectory t JOIN session_index s ON s.trace_id = t.trace_id
    WHERE s.started_at >= ? AND s.started_at <= ? AND s.synthetic = 0 AND t.kind IN (${kindList})`;
  const trajectory = db.prepare<[number, number, number], TrajectoryRow>(`SELECT t.seq, t.ts, t.trace_id, t.kind, t.data ${trajectoryFrom} ORDER BY t.id LIMIT ?`);
  const trajectoryCount = db.prepare<[number, number], { n: number }>(`SELECT COUNT(*) AS n ${trajectoryFrom}`);
  const usage = db.prepare<[number, number], UsageRow>(
    `SELECT agent_id, provider, model, COUNT(*) AS calls, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
       SUM(cache_read_tokens) AS cache_read_tokens, SUM(cost_usd) AS cost_usd
     FROM token_usage WHERE ts >= ? AND ts <= ? GROUP BY agent_id, provider, model ORDER BY agent_id, provider, model`);
  const signals = db.prepare<[number, number, string, number], SignalRow>(
    `SELECT ${SIGNAL_COLUMNS} FROM health_signals WHERE ts >= ? AND ts <= ? AND kind != ? ORDER BY ts, id LIMIT ?`);
  const signalCount = db.prepare<[number, number, string], { n: number }>('SELECT COUNT(*) AS n FROM health_signals WHERE ts >= ? AND ts <= ? AND kind != ?');
  const posture = db.prepare<[string, number], SignalRow>(`SELECT ${SIGNAL_COLUMNS} FROM health_signals WHERE kind = ? AND ts <= ? ORDER BY ts DESC, id DESC LIMIT 1`);
  const runs = db.prepare<[number, number, number], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE started_at >= ? AND started_at <= ? ORDER BY started_at, run_id LIMIT ?`);
  const runCount = db.prepare<[number, number], { n: number }>('SELECT COUNT(*) AS n FROM runs WHERE started_at >= ? AND started_at <= ?');

  return {
    async load({ nowMs, sinceHours }) {
      await flush?.();
      const since = nowMs - sinceHours * 3_600_000;
      const caps: { field: string; kept: number; total: number }[] = [];
      const capped = <T>(field: string, rows: T[], limit: number, total: () => number): T[] => {
        if (rows.length === limit) caps.push({ field, kept: limit, total: total() });
        return rows;
      };
      const sessionRows = capped('sessions', sessions.all(since, nowMs, FLEET_ROW_CAPS.sessions), FLEET_ROW_CAPS.sessions, () => sessionCount.get(since, nowMs)?.n ?? 0);
      const trajectoryRows = capped('trajectory', trajectory.all(since, nowMs, FLEET_ROW_CAPS.trajectory), FLEET_ROW_CAPS.trajectory, () => trajectoryCount.get(since, nowMs)?.n ?? 0);
      const signalRows = capped('signals', signals.all(since, nowMs, SIGNAL_KIND.configPosture, FLEET_ROW_CAPS.signals), FLEET_ROW_CAPS.signals,
        () => signalCount.get(since, nowMs, SIGNAL_KIND.configPosture)?.n ?? 0);
      const runRows = hasDurableRuns ? capped('runs', runs.all(since, nowMs, FLEET_ROW_CAPS.runs), FLEET_ROW_CAPS.runs, () => runCount.get(since, nowMs)?.n ?? 0) : undefined;
      const latestPosture = posture.get(SIGNAL_KIND.configPosture, nowMs);
      const usageRows: UsageEvidence[] = usage.all(since, nowMs).map((row) => ({
        agentId: row.agent_id, provider: row.provider, model: row.model, calls: row.calls,
        inputTokens: num(row.input_tokens), outputTokens: num(row.output_tokens), cacheReadTokens: num(row.cache_read_tokens), costUsd: num(row.cost_usd),
      }));
      return {
        nowMs,
        sinceHours,
        sessions: sessionRows.map(toIndexEvidence),
        trajectory: trajectoryRows.map(toTrajectoryEvidence),
        usage: usageRows,
        signals: signalRows.map(toSignalEvidence),
        ...(latestPosture === undefined ? {} : { latestPosture: toSignalEvidence(latestPosture) }),
        ...(runRows === undefined ? {} : { runs: runRows.map(toRunEvidence) }),
        ...(caps.length === 0 ? {} : { caps }),
      };
    },
  };
}
