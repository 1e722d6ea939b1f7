// The one WHERE-clause builder of the SQLite adapters: equality, range, list and trusted-fragment conditions with their bound values.

export type SqlValue = string | number;

export interface WhereClause {
  /** '' when nothing narrows, else `WHERE a = ? AND b >= ?`. */
  sql: string;
  values: SqlValue[];
}

/** A condition written by an adapter (never from input) with its bound values; applied in parentheses. */
export interface SqlFragment {
  sql: string;
  values: readonly SqlValue[];
}

/**
 * A column condition is applied only when its value is defined; `column` is a trusted SQL fragment, never input.
 * A fragment is applied as is; `undefined` (an optional fragment left out) is skipped.
 */
export type Condition =
  | readonly [column: string, operator: '=' | '!=' | '>=' | '<=' | '<' | '>', value: SqlValue | undefined]
  | SqlFragment
  | undefined;

export function buildWhere(conditions: readonly Condition[]): WhereClause {
  const clauses: string[] = [];
  const values: SqlValue[] = [];
  for (const condition of conditions) {
    if (condition === undefined) continue;
    if ('sql' in condition) {
      clauses.push(`(${condition.sql})`);
      values.push(...condition.values);
      continue;
    }
    const [column, operator, value] = condition;
    if (value === undefined) continue;
    clauses.push(`${column} ${operator} ?`);
    values.push(value);
  }
  return { sql: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, values };
}

/** `column IN (?, …)`; an empty list matches nothing. */
export function inList(column: string, values: readonly SqlValue[]): SqlFragment {
  return values.length === 0
    ? { sql: '0', values: [] }
    : { sql: `${column} IN (${values.map(() => '?').join(', ')})`, values };
}
