// The shared ports' handle on PostgreSQL: Kysely's PostgresDialect compiles each query and it runs on the pool (a
// transaction on one client through `transaction`, which keeps a server hang-up from crashing the process).
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import type { StoreDb, Tables } from '../shared/index.js';
import { sqlState, transaction, UNIQUE_VIOLATION, type PgPool, type Queryable } from './pool.js';

const handles = new WeakMap<PgPool, StoreDb>();

function constraintOf(error: unknown): string | undefined {
  return error instanceof Error && 'constraint' in error && typeof error.constraint === 'string'
    ? error.constraint
    : undefined;
}

const run = (client: Queryable, { sql, parameters }: CompiledQuery) => client.query(sql, [...parameters]);

/** One handle per pool, shared by every port opened on it. */
export function postgresStoreDb(pool: PgPool): StoreDb {
  let handle = handles.get(pool);
  if (handle !== undefined) return handle;
  handle = {
    dialect: 'postgres',
    db: new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) }),
    rows: async (query) => (await run(pool, query.compile())).rows,
    changes: async (query) => (await run(pool, query.compile())).rowCount ?? 0,
    atomic: (queries) =>
      transaction(pool, async (client) => {
        const changed: number[] = [];
        for (const query of queries) changed.push((await run(client, query.compile())).rowCount ?? 0);
        return changed;
      }),
    // Every table's primary key constraint is PostgreSQL's default <table>_pkey.
    violated: (error) =>
      sqlState(error) !== UNIQUE_VIOLATION ? undefined : constraintOf(error)?.endsWith('_pkey') ? 'primary' : 'unique',
  };
  handles.set(pool, handle);
  return handle;
}
