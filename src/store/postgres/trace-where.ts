// Compiles trace-search conditions to SQL over session_index, with bound values only.
import type { TraceCondition, TraceFlagField, TraceTextField } from '../ports/evidence.js';
import type { Params } from './where.js';

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

function compileCondition(params: Params, condition: TraceCondition): string {
  if (isFlag(condition))
    return `${FLAG_COLUMNS[condition.field]} ${condition.op === '=' ? '=' : '<>'} ${params.add(condition.value)}`;
  const column = TEXT_COLUMNS[condition.field];
  if (condition.op === '~') return `strpos(${column}, ${params.add(condition.value)}) > 0`;
  if (condition.value === null) return `${column} IS ${condition.op === '=' ? '' : 'NOT '}NULL`;
  // `!=` keeps rows whose value is absent, as a reader would expect.
  return condition.op === '='
    ? `${column} = ${params.add(condition.value)}`
    : `(${column} IS NULL OR ${column} <> ${params.add(condition.value)})`;
}

/** The conditions joined by AND, their values bound through `params`. */
export function compileTraceWhere(params: Params, conditions: readonly TraceCondition[]): string {
  return conditions.map((condition) => compileCondition(params, condition)).join(' AND ');
}
