// Compiles trace-search conditions to SQL over session_index, with bound values only.
import type { TraceCondition, TraceFlagField, TraceTextField } from '../ports/evidence.js';
import type { SqlFragment, SqlValue } from './where.js';

const TEXT_COLUMNS: Record<TraceTextField, string> = {
  agentId: 'agent_id',
  channel: 'channel',
  endReason: 'end_reason',
  sessionKey: 'session_key',
  traceId: 'trace_id',
  messageId: 'message_id',
  rootRunId: 'root_run_id',
  day: 'day',
};
const FLAG_COLUMNS: Record<TraceFlagField, string> = { degraded: 'degraded', synthetic: 'synthetic' };

type FlagCondition = Extract<TraceCondition, { field: TraceFlagField }>;
const isFlag = (condition: TraceCondition): condition is FlagCondition =>
  condition.field === 'degraded' || condition.field === 'synthetic';

function compileCondition(condition: TraceCondition): SqlFragment {
  if (isFlag(condition)) {
    return { sql: `${FLAG_COLUMNS[condition.field]} ${condition.op} ?`, values: [condition.value ? 1 : 0] };
  }
  const column = TEXT_COLUMNS[condition.field];
  if (condition.op === '~') return { sql: `instr(${column}, ?) > 0`, values: [condition.value] };
  if (condition.value === null) return { sql: `${column} IS ${condition.op === '=' ? '' : 'NOT '}NULL`, values: [] };
  // `!=` keeps rows whose value is absent, as a reader would expect.
  return condition.op === '='
    ? { sql: `${column} = ?`, values: [condition.value] }
    : { sql: `(${column} IS NULL OR ${column} != ?)`, values: [condition.value] };
}

/** The conditions joined by AND (each with `?` placeholders only). */
export function compileTraceWhere(conditions: readonly TraceCondition[]): SqlFragment {
  const parts = conditions.map(compileCondition);
  const values: SqlValue[] = parts.flatMap((part) => part.values);
  return { sql: parts.map((part) => part.sql).join(' AND '), values };
}
