// One database as the shared ports use it: Kysely builds each query in the database's dialect, the backend runs it; and
// the few expressions whose SQL differs between SQLite and PostgreSQL, each a dialect branch in one function.
import { sql, type Compilable, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Flag, Tables } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface StoreDb {
  readonly dialect: Dialect;
  /** Builds queries only: they run through `rows`, `changes` and `atomic`, so each backend decides how. */
  readonly db: Kysely<Tables>;
  rows<R>(query: Compilable<R>): Promise<R[]>;
  /** How many rows a write changed. */
  changes(query: Compilable): Promise<number>;
  /** Runs the writes in order in one transaction, all or nothing; resolves with the rows each changed. */
  atomic(queries: readonly Compilable[]): Promise<number[]>;
  /** Which key a failed write collided with: the primary key, another unique constraint, or none (another error). */
  violated(error: unknown): 'primary' | 'unique' | undefined;
}

export async function first<R>(store: StoreDb, query: Compilable<R>): Promise<R | undefined> {
  return (await store.rows(query))[0];
}

/** A boolean as the dialect stores it. */
export const flag = (store: StoreDb, value: boolean): Flag => (store.dialect === 'sqlite' ? (value ? 1 : 0) : value);

/** A stored boolean read back (1 on SQLite, true on PostgreSQL). */
export const isSet = (value: Flag): boolean => value === true || value === 1;

/**
 * `column` is one of `values`, bound as one parameter however many there are (no statement-size limit to split
 * around): a JSON array read by json_each on SQLite, an array on PostgreSQL. An empty list matches nothing.
 */
export function isAnyOf(
  store: StoreDb,
  column: string,
  values: readonly (string | number)[],
  type: 'text' | 'bigint' = 'text',
): Expression<SqlBool> {
  return store.dialect === 'sqlite'
    ? sql<SqlBool>`${sql.ref(column)} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`
    : sql<SqlBool>`${sql.ref(column)} = ANY(${[...values]}::${sql.raw(type)}[])`;
}

/** `column` contains `value` as a substring, case-sensitively on both (SQLite's LIKE ignores ASCII case). */
export function contains(store: StoreDb, column: string, value: string): Expression<SqlBool> {
  return store.dialect === 'sqlite'
    ? sql<SqlBool>`instr(${sql.ref(column)}, ${value}) > 0`
    : sql<SqlBool>`strpos(${sql.ref(column)}, ${value}) > 0`;
}
