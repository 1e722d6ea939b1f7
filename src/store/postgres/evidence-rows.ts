// Column lists of the PostgreSQL evidence tables and their conversion to the EvidencePort's plain rows.
import type { StoredHealthSignal, StoredTrajectory } from '../ports/evidence.js';

/** A JSON text column parsed to an object; malformed or non-object JSON reads as an empty object. */
export function parseObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? Object.fromEntries(Object.entries(parsed))
      : {};
  } catch {
    return {};
  }
}

export const INDEX_COLUMNS = `trace_id AS "traceId", session_key AS "sessionKey", agent_id AS "agentId", channel, message_id AS "messageId",
  root_run_id AS "rootRunId", end_reason AS "endReason", degraded, started_at AS "startedAt", ended_at AS "endedAt", day, synthetic AS "isSynthetic"`;
export const INDEX_SELECT = `SELECT ${INDEX_COLUMNS} FROM session_index`;

/** Selected from `trajectory t`. */
export const TRAJECTORY_COLUMNS = 't.session_key AS "sessionKey", t.trace_id AS "traceId", t.seq, t.ts, t.kind, t.data';

export type TrajectoryRaw = Omit<StoredTrajectory, 'data'> & { data: string };

export const toTrajectory = (row: TrajectoryRaw): StoredTrajectory => ({
  sessionKey: row.sessionKey,
  traceId: row.traceId,
  seq: row.seq,
  ts: row.ts,
  kind: row.kind,
  data: parseObject(row.data),
});

export const RUN_COLUMNS = `run_id AS "runId", root_run_id AS "rootRunId", parent_key AS "parentKey", session_key AS "sessionKey", agent_id AS "agentId",
  status, started_at AS "startedAt", cost_usd AS "costUsd"`;

export const SIGNAL_COLUMNS = 'id, ts, kind, agent_id AS "agentId", root_run_id AS "rootRunId", severity, data';

export type SignalRaw = Omit<StoredHealthSignal, 'data'> & { data: string };

export const toSignal = (row: SignalRaw): StoredHealthSignal => ({ ...row, data: parseObject(row.data) });
