// The obs.trace.search `where` syntax: `field op value [and field op value …]`, parsed to the EvidencePort's trace conditions.
//
//   field  agentId | channel | endReason | sessionKey | traceId | messageId | rootRunId | day | degraded | synthetic
//   op     =  (equals)   !=  (differs)   ~  (contains; text fields only)
//   value  a bare token (letters, digits, . _ : @ / + -), or 'single' / "double" quoted text; the bare word
//          null matches an absent value (= null, != null); degraded and synthetic take true or false.
//
//   where: "agentId = default and endReason != completed and sessionKey ~ 'alice'"
import { invalidParams } from '../errors.js';
import type { TraceCondition, TraceFlagField, TraceTextField } from '../store/index.js';

const TEXT_FIELDS: readonly TraceTextField[] = [
  'agentId',
  'channel',
  'endReason',
  'sessionKey',
  'traceId',
  'messageId',
  'rootRunId',
  'day',
];
const FLAG_FIELDS: readonly TraceFlagField[] = ['degraded', 'synthetic'];

export const WHERE_MAX_CLAUSES = 8;
export const WHERE_MAX_LENGTH = 1000;

const CLAUSE = /^\s*([A-Za-z]+)\s*(!=|=|~)\s*(?:'([^']*)'|"([^"]*)"|([\w.:@/+-]+))\s*/;
const AND = /^and\b\s*/i;

function fail(reason: string): never {
  throw invalidParams(`Invalid params: 'where' ${reason}`, 'where');
}

const isFlag = (field: string): field is TraceFlagField => FLAG_FIELDS.some((flag) => flag === field);
const isText = (field: string): field is TraceTextField => TEXT_FIELDS.some((text) => text === field);

function parseClause(field: string, op: '=' | '!=' | '~', value: string, isBare: boolean): TraceCondition {
  if (isFlag(field)) {
    if (op === '~' || !isBare || (value !== 'true' && value !== 'false'))
      fail(`${field} takes = true, = false, != true or != false`);
    return { field, op, value: value === 'true' };
  }
  if (!isText(field)) fail(`has an unknown field '${field}' (fields: ${[...TEXT_FIELDS, ...FLAG_FIELDS].join(', ')})`);
  if (isBare && value === 'null') {
    if (op === '~') fail('cannot use ~ with null');
    return { field, op, value: null };
  }
  return op === '~' ? { field, op, value } : { field, op, value };
}

const toOperator = (text: string | undefined): '=' | '!=' | '~' => (text === '!=' || text === '~' ? text : '=');

/** The conditions of a `where` text, all of which must hold; malformed text is invalid_params naming `where`. */
export function parseWhere(text: string): TraceCondition[] {
  if (text.length > WHERE_MAX_LENGTH) fail(`is longer than ${WHERE_MAX_LENGTH} characters`);
  const parts: TraceCondition[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    if (parts.length > 0) {
      const joined = AND.exec(rest);
      if (joined === null) fail(`expects 'and' before '${rest.slice(0, 20)}'`);
      rest = rest.slice(joined[0].length);
    }
    const match = CLAUSE.exec(rest);
    if (match === null) fail(`cannot parse '${rest.slice(0, 20)}': expected field op value`);
    const [whole, field = '', op, single, double, bare] = match;
    parts.push(parseClause(field, toOperator(op), single ?? double ?? bare ?? '', bare !== undefined));
    if (parts.length > WHERE_MAX_CLAUSES) fail(`has more than ${WHERE_MAX_CLAUSES} clauses`);
    rest = rest.slice(whole.length);
  }
  if (parts.length === 0) fail('is empty');
  return parts;
}

const DURATION = /^(\d{1,12})(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `since`: a duration back from now (`90m`, `2h`, `1d`), an ISO 8601 time, or epoch milliseconds. */
export function parseSince(text: string, nowMs: number): number {
  const duration = DURATION.exec(text.trim());
  if (duration !== null) return nowMs - Number(duration[1]) * (UNIT_MS[duration[2] ?? 'ms'] ?? 1);
  if (/^\d{1,15}$/.test(text.trim())) return Number(text.trim());
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed))
    throw invalidParams(
      "Invalid params: 'since' must be a duration (2h, 30m, 1d), an ISO 8601 time or epoch milliseconds",
      'since',
    );
  return parsed;
}
