// The WHERE-clause builder of the PostgreSQL adapters: numbered placeholders ($1, $2 …) with their bound values.

export type PgValue = string | number | boolean | null | readonly (string | number | boolean | null)[];

/** Collects bound values and hands out their placeholders, so conditions can be written in any order. */
export class Params {
  readonly values: PgValue[] = [];
  constructor(initial: readonly PgValue[] = []) {
    this.values.push(...initial);
  }
  /** Binds the value and returns its placeholder. */
  add(value: PgValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A condition written by an adapter (never from input), built with the query's Params. */
export type Condition =
  | readonly [column: string, operator: '=' | '!=' | '>=' | '<=' | '<' | '>', value: string | number | undefined]
  | string
  | undefined;

/** `WHERE a = $1 AND …`, or '' when nothing narrows; a column condition applies only when its value is defined. */
export function buildWhere(params: Params, conditions: readonly Condition[]): string {
  const clauses: string[] = [];
  for (const condition of conditions) {
    if (condition === undefined) continue;
    if (typeof condition === 'string') {
      clauses.push(`(${condition})`);
      continue;
    }
    const [column, operator, value] = condition;
    if (value === undefined) continue;
    clauses.push(`${column} ${operator} ${params.add(value)}`);
  }
  return clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
}
