// The WHERE builder of both backends' hand-written memory SQL: conditions an adapter writes (never input), their values
// bound as the SQL is written: `?` on SQLite, in the order they appear; `$1, $2 …` on PostgreSQL.
import { ownerCondition, type MemoryFilter } from '../index.js';
import type { Dialect } from './store-db.js';

export type SqlScalar = string | number;

/** Binds values and hands out their placeholders; `initial` are bound first (PostgreSQL's $1 …). */
export class Params {
  readonly values: unknown[];
  constructor(
    readonly dialect: Dialect,
    initial: readonly unknown[] = [],
  ) {
    this.values = [...initial];
  }

  add(value: SqlScalar): string {
    this.values.push(value);
    return this.dialect === 'sqlite' ? '?' : `$${this.values.length}`;
  }

  /** `column` is one of `values`: `IN (?, …)` on SQLite, one array parameter on PostgreSQL; none matches nothing. */
  anyOf(column: string, values: readonly SqlScalar[], type: 'text' | 'bigint' = 'text'): string {
    if (this.dialect === 'postgres') {
      this.values.push([...values]);
      return `${column} = ANY($${this.values.length}::${type}[])`;
    }
    return values.length === 0 ? '0' : `${column} IN (${values.map((value) => this.add(value)).join(', ')})`;
  }
}

/** A column condition applies only when its value is defined; a fragment writes its SQL, binding its values, in place. */
export type Condition =
  | readonly [column: string, operator: '=' | '!=' | '>=' | '<=' | '<' | '>', value: SqlScalar | undefined]
  | ((params: Params) => string)
  | undefined;

/** `WHERE a = ? AND …`, or '' when nothing narrows. */
export function buildWhere(params: Params, conditions: readonly Condition[]): string {
  const clauses = conditions.flatMap((condition) => {
    if (condition === undefined) return [];
    if (typeof condition === 'function') return [`(${condition(params)})`];
    const [column, operator, value] = condition;
    return value === undefined ? [] : [`${column} ${operator} ${params.add(value)}`];
  });
  return clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
}

/** A memory scope and filter as conditions on the entry columns (`prefix`: the table alias, trusted). */
export function memoryFilterConditions(filter: MemoryFilter, prefix = 'e.'): Condition[] {
  const owner = ownerCondition(filter);
  return [
    [`${prefix}tenant_id`, '=', filter.tenantId],
    [`${prefix}agent_id`, '=', filter.agentId],
    owner === undefined
      ? undefined
      : owner.tenantIds.length === 0
        ? [`${prefix}owner_id`, '=', owner.ownerId]
        : (params) =>
            `${prefix}owner_id = ${params.add(owner.ownerId)} OR ${params.anyOf(`${prefix}tenant_id`, owner.tenantIds)}`,
    [`${prefix}memory_type`, '=', filter.memoryType],
    [`${prefix}trust_level`, '=', filter.trustLevel],
    [`${prefix}status`, '=', filter.status],
  ];
}
