// SQLite row shapes of the evidence tables and their conversion to evidence records.
import { num, parseData } from './read.js';
import type { HealthSignalEvidence, RunEvidence, SessionIndexEvidence, TrajectoryEvidence } from './records.js';

export const INDEX_COLUMNS = 'trace_id, session_key, agent_id, channel, message_id, root_run_id, end_reason, degraded, started_at, ended_at, day, synthetic';

export interface IndexRow {
  trace_id: string;
  session_key: string;
  agent_id: string;
  channel: string;
  message_id: string | null;
  root_run_id: string | null;
  end_reason: string | null;
  degraded: number;
  started_at: number;
  ended_at: number | null;
  day: string;
  synthetic: number;
}

export function toIndexEvidence(row: IndexRow): SessionIndexEvidence {
  return {
    traceId: row.trace_id,
    sessionKey: row.session_key,
    agentId: row.agent_id,
    channel: row.channel,
    messageId: row.message_id,
    rootRunId: row.root_run_id,
    endReason: row.end_reason,
    degraded: row.degraded === 1,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    day: row.day,
    isSynthetic: row.synthetic === 1,
  };
}

export interface TrajectoryRow {
  seq: number;
  ts: number;
  trace_id: string;
  kind: string;
  data: string;
}

export const toTrajectoryEvidence = (row: TrajectoryRow): TrajectoryEvidence =>
  ({ seq: row.seq, ts: row.ts, traceId: row.trace_id, kind: row.kind, data: parseData(row.data) });

export const RUN_COLUMNS = 'run_id, root_run_id, parent_key, session_key, agent_id, status, started_at, cost_usd';

export interface RunRow {
  run_id: string;
  root_run_id: string;
  parent_key: string | null;
  session_key: string;
  agent_id: string;
  status: string;
  started_at: number;
  cost_usd: number | null;
}

export const toRunEvidence = (row: RunRow): RunEvidence => ({
  runId: row.run_id,
  rootRunId: row.root_run_id,
  parentKey: row.parent_key,
  sessionKey: row.session_key,
  agentId: row.agent_id,
  status: row.status,
  startedAt: row.started_at,
  costUsd: num(row.cost_usd),
});

export const SIGNAL_COLUMNS = 'id, ts, kind, agent_id, root_run_id, severity, data';

export interface SignalRow {
  id: number;
  ts: number;
  kind: string;
  agent_id: string | null;
  root_run_id: string | null;
  severity: string;
  data: string;
}

export const toSignalEvidence = (row: SignalRow): HealthSignalEvidence => ({
  id: row.id,
  ts: row.ts,
  kind: row.kind,
  agentId: row.agent_id,
  rootRunId: row.root_run_id,
  severity: row.severity,
  data: parseData(row.data),
});
