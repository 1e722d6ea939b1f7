// The one WHERE-clause builder of the SQLite adapters: equality and range conditions with their bound values.

export type SqlValue = string | number;

export interface WhereClause {
  /** '' when nothing narrows, else `WHERE a = ? AND b >= ?`. */
  sql: string;
  values: SqlValue[];
}

/** A condition is applied only when its value is defined; `column` is a trusted SQL fragment, never input. */
export type Condition = readonly [column: string, operator: '=' | '>=' | '<=' | '<' | '>', value: SqlValue | undefined];

export function buildWhere(conditions: readonly Condition[]): WhereClause {
  const clauses: string[] = [];
  const values: SqlValue[] = [];
  for (const [column, operator, value] of conditions) {
    if (value === undefined) continue;
    clauses.push(`${column} ${operator} ?`);
    values.push(value);
  }
  return { sql: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, values };
}
