// The scope and filter conditions every SQLite memory query applies, and the entries read from their rows.
import type { MemoryEntry, MemoryFilter } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import {
  buildWhere,
  LINKS_ORDER,
  LINKS_SELECT,
  memoryFilterConditions,
  observationSeqs,
  Params,
  toEntries,
  type Condition,
  type MemoryRow,
  type SqlScalar,
} from '../shared/index.js';

/** SQLite's default limit on bound parameters is far higher; lists are bound in chunks of this many. */
const MAX_BOUND_IDS = 500;

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

export function chunks<T>(items: readonly T[], size = MAX_BOUND_IDS): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** Maps rows to entries, reading the observations' source ids (in the order they were given) in one query per chunk. */
export function createEntryReader(db: SqliteDatabase): (rows: readonly MemoryRow[]) => MemoryEntry[] {
  type Link = { observation: number; source: string };
  const statements = new Map<number, ReturnType<typeof db.prepare<number[], Link>>>();
  const linksOf = (seqs: number[]) => {
    let statement = statements.get(seqs.length);
    if (statement === undefined) {
      const where = inList('l.observation_seq', seqs);
      statement = db.prepare<number[], Link>(`${LINKS_SELECT} WHERE ${where.sql} ${LINKS_ORDER}`);
      statements.set(seqs.length, statement);
    }
    return statement.all(...seqs);
  };
  return (rows) => toEntries(rows, chunks(observationSeqs(rows)).flatMap(linksOf));
}
