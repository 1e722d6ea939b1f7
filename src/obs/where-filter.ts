// The obs.trace.search `where` syntax: `field op value [and field op value …]`, compiled to bound SQL, never raw SQL.
//
//   field  agentId | channel | endReason | sessionKey | traceId | messageId | rootRunId | day | degraded | synthetic
//   op     =  (equals)   !=  (differs)   ~  (contains; text fields only)
//   value  a bare token (letters, digits, . _ : @ / + -), or 'single' / "double" quoted text; the bare word
//          null matches an absent value (= null, != null); degraded and synthetic take true or false.
//
//   where: "agentId = default and endReason != completed and sessionKey ~ 'alice'"
import { invalidParams } from '../errors.js';

const TEXT_COLUMNS: Record<string, string> = {
  agentId: 'agent_id',
  channel: 'channel',
  endReason: 'end_reason',
  sessionKey: 'session_key',
  traceId: 'trace_id',
  messageId: 'message_id',
  rootRunId: 'root_run_id',
  day: 'day',
};
const FLAG_COLUMNS: Record<string, string> = { degraded: 'degraded', synthetic: 'synthetic' };

export const WHERE_MAX_CLAUSES = 8;
export const WHERE_MAX_LENGTH = 1000;

export interface CompiledWhere {
  /** SQL conditions joined by AND, each with `?` placeholders only. */
  sql: string;
  values: (string | number)[];
}

const CLAUSE = /^\s*([A-Za-z]+)\s*(!=|=|~)\s*(?:'([^']*)'|"([^"]*)"|([\w.:@/+-]+))\s*/;
const AND = /^and\b\s*/i;

function fail(reason: string): never {
  throw invalidParams(`Invalid params: 'where' ${reason}`, 'where');
}

function compileClause(field: string, op: string, value: string, isBare: boolean): CompiledWhere {
  const flag = FLAG_COLUMNS[field];
  if (flag !== undefined) {
    if (op === '~' || !isBare || (value !== 'true' && value !== 'false')) fail(`${field} takes = true, = false, != true or != false`);
    return { sql: `${flag} ${op === '=' ? '=' : '!='} ?`, values: [value === 'true' ? 1 : 0] };
  }
  const column = TEXT_COLUMNS[field];
  if (column === undefined) fail(`has an unknown field '${field}' (fields: ${[...Object.keys(TEXT_COLUMNS), ...Object.keys(FLAG_COLUMNS)].join(', ')})`);
  if (isBare && value === 'null') {
    if (op === '~') fail('cannot use ~ with null');
    return { sql: `${column} IS ${op === '=' ? '' : 'NOT '}NULL`, values: [] };
  }
  if (op === '~') return { sql: `instr(${column}, ?) > 0`, values: [value] };
  // `!=` keeps rows whose value is absent, as a reader would expect.
  return op === '=' ? { sql: `${column} = ?`, values: [value] } : { sql: `(${column} IS NULL OR ${column} != ?)`, values: [value] };
}

export function compileWhere(text: string): CompiledWhere {
  if (text.length > WHERE_MAX_LENGTH) fail(`is longer than ${WHERE_MAX_LENGTH} characters`);
  const parts: CompiledWhere[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    if (parts.length > 0) {
      const joined = AND.exec(rest);
      if (joined === null) fail(`expects 'and' before '${rest.slice(0, 20)}'`);
      rest = rest.slice(joined[0].length);
    }
    const match = CLAUSE.exec(rest);
    if (match === null) fail(`cannot parse '${rest.slice(0, 20)}': expected field op value`);
    const [whole, field = '', op = '=', single, double, bare] = match;
    parts.push(compileClause(field, op, single ?? double ?? bare ?? '', bare !== undefined));
    if (parts.length > WHERE_MAX_CLAUSES) fail(`has more than ${WHERE_MAX_CLAUSES} clauses`);
    rest = rest.slice(whole.length);
  }
  if (parts.length === 0) fail('is empty');
  return { sql: parts.map((part) => part.sql).join(' AND '), values: parts.flatMap((part) => part.values) };
}

const DURATION = /^(\d{1,12})(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `since`: a duration back from now (`90m`, `2h`, `1d`), an ISO 8601 time, or epoch milliseconds. */
export function parseSince(text: string, nowMs: number): number {
  const duration = DURATION.exec(text.trim());
  if (duration !== null) return nowMs - Number(duration[1]) * (UNIT_MS[duration[2] ?? 'ms'] ?? 1);
  if (/^\d{1,15}$/.test(text.trim())) return Number(text.trim());
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) throw invalidParams("Invalid params: 'since' must be a duration (2h, 30m, 1d), an ISO 8601 time or epoch milliseconds", 'since');
  return parsed;
}
