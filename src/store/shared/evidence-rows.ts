// The evidence tables' columns as the EvidencePort names them, and their rows converted to its records.
import type { SessionIndexRow, StoredHealthSignal } from '../ports/evidence.js';
import { isSet } from './store-db.js';
import type { Flag } from './tables.js';

/** A JSON text column parsed to an object; malformed or non-object JSON reads as an empty object. */
function parseObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? Object.fromEntries(Object.entries(parsed))
      : {};
  } catch {
    return {};
  }
}

export const INDEX_COLUMNS = [
  'trace_id as traceId',
  'session_key as sessionKey',
  'agent_id as agentId',
  'channel',
  'message_id as messageId',
  'root_run_id as rootRunId',
  'end_reason as endReason',
  'degraded',
  'started_at as startedAt',
  'ended_at as endedAt',
  'day',
  'synthetic',
] as const;

type IndexRaw = Omit<SessionIndexRow, 'degraded' | 'isSynthetic'> & { degraded: Flag; synthetic: Flag };

/** Built field by field: a window read converts up to 50,000 rows, where a rest spread per row shows. */
export const toIndexRow = (row: IndexRaw): SessionIndexRow => ({
  traceId: row.traceId,
  sessionKey: row.sessionKey,
  agentId: row.agentId,
  channel: row.channel,
  messageId: row.messageId,
  rootRunId: row.rootRunId,
  endReason: row.endReason,
  degraded: isSet(row.degraded),
  startedAt: row.startedAt,
  endedAt: row.endedAt,
  day: row.day,
  isSynthetic: isSet(row.synthetic),
});

export const RUN_COLUMNS = [
  'run_id as runId',
  'root_run_id as rootRunId',
  'parent_key as parentKey',
  'session_key as sessionKey',
  'agent_id as agentId',
  'status',
  'started_at as startedAt',
  'cost_usd as costUsd',
] as const;

export const SIGNAL_COLUMNS = [
  'id',
  'ts',
  'kind',
  'agent_id as agentId',
  'root_run_id as rootRunId',
  'severity',
  'data',
] as const;

export const toSignal = (row: Omit<StoredHealthSignal, 'data'> & { data: string }): StoredHealthSignal => ({
  ...row,
  data: parseObject(row.data),
});
