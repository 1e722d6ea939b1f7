// One database as the shared ports use it: Kysely builds each query in the database's dialect, the backend runs it; and
// the few expressions whose SQL differs between SQLite and PostgreSQL, each a dialect branch in one function.
import { sql, type Compilable, type CompiledQuery, type Expression, type Kysely, type SqlBool } from 'kysely';
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

/** Stands for one named argument while a prepared query is compiled. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A query of fixed shape, compiled once (at its first use) with a slot in place of each named argument; each call then
 * swaps its arguments in. On the request path (a token looked up by hash, a response saved and read) compiling costs
 * more than running the SQLite statement, which is prepared once per connection either way. Every call passes the
 * same names, none undefined.
 */
export function prepared<A extends Record<string, unknown>, R>(
  build: (args: A) => Compilable<R>,
): (args: A) => Compilable<R> {
  let compiled: CompiledQuery<R> | undefined;
  return (args) => ({
    compile() {
      if (compiled === undefined) {
        // The slots pass through the query builder as opaque parameter values, never read as what they stand for.
        const slots = Object.fromEntries(Object.keys(args).map((name) => [name, new Slot(name)]));
        compiled = build(slots as A).compile();
      }
      const parameters = compiled.parameters.map((value) => (value instanceof Slot ? args[value.name] : value));
      return { ...compiled, parameters };
    },
  });
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
