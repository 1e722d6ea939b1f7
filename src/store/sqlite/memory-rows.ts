// The scope and filter conditions of SQLite's own memory statements (its lanes and writes), bound as `?` in order.
import type { MemoryFilter } from '../index.js';
import { buildWhere, memoryFilterConditions, Params, type Condition, type SqlScalar } from '../shared/index.js';

export interface WhereClause {
  /** '' when nothing narrows, else `WHERE a = ? AND …`. */
  sql: string;
  values: unknown[];
}

function sqliteWhere(conditions: readonly Condition[]): WhereClause {
  const params = new Params('sqlite');
  return { sql: buildWhere(params, conditions), values: params.values };
}

export const filterWhere = (filter: MemoryFilter, extra: readonly Condition[] = []): WhereClause =>
  sqliteWhere([...memoryFilterConditions(filter), ...extra]);

/**
 * Entries named by id or seq, kept to the filter: its columns are written `+e.column`, which SQLite reads as "use no
 * index here", so it looks the named rows up rather than walking the scope's index (as long as the scope).
 */
export const keyedFilterWhere = (key: Condition, filter: MemoryFilter, extra: readonly Condition[] = []): WhereClause =>
  sqliteWhere([key, ...memoryFilterConditions(filter, '+e.'), ...extra]);

/** `column IN (?, …)` with its values; an empty list matches nothing. */
export function inList(column: string, values: readonly SqlScalar[]): WhereClause {
  const params = new Params('sqlite');
  return { sql: params.anyOf(column, values), values: params.values };
}
