// The shared ports' handle on the SQLite file (Kysely's SqliteDialect compiles each query and it runs here, on this
// connection's prepared statements kept by SQL text, so a port call costs a compile but no prepare), and those ports.
import Database, { type Statement } from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import {
  createApprovalPort,
  createAuditPort,
  createJobPort,
  createMediaPort,
  createResponsePort,
  createRunPort,
  createTokenPort,
  type StoreDb,
  type Tables,
} from '../shared/index.js';
import type { SqliteDatabase } from './database.js';

/** Distinct statements kept per connection; past it the cache starts over (the ports build a few dozen shapes). */
const STATEMENTS_KEPT = 256;

const handles = new WeakMap<SqliteDatabase, StoreDb>();

/** One handle per connection, shared by every port opened on it. */
export function sqliteStoreDb(sqlite: SqliteDatabase): StoreDb {
  let handle = handles.get(sqlite);
  if (handle === undefined) {
    handle = createHandle(sqlite);
    handles.set(sqlite, handle);
  }
  return handle;
}

/** Prepares each SQL text once on this connection, keeping up to STATEMENTS_KEPT of them (then starting over). */
export function statementCache(sqlite: SqliteDatabase): (text: string) => Statement<unknown[]> {
  const statements = new Map<string, Statement<unknown[]>>();
  return (text) => {
    let statement = statements.get(text);
    if (statement === undefined) {
      if (statements.size >= STATEMENTS_KEPT) statements.clear();
      statement = sqlite.prepare<unknown[]>(text);
      statements.set(text, statement);
    }
    return statement;
  };
}

function createHandle(sqlite: SqliteDatabase): StoreDb {
  const prepare = statementCache(sqlite);
  // Kysely's own driver (`.execute()`) prepares through the same cache; the ports run queries through `run` instead.
  const database = {
    close: () => undefined,
    prepare(text: string) {
      const statement = prepare(text);
      return {
        reader: statement.reader,
        all: (parameters: readonly unknown[]) => statement.all(...parameters),
        run: (parameters: readonly unknown[]) => statement.run(...parameters),
        iterate: (parameters: readonly unknown[]) => statement.iterate(...parameters),
      };
    },
  };
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
  const run = ({ sql, parameters }: CompiledQuery): { rows: unknown[]; changes: number } => {
    const statement = prepare(sql);
    return statement.reader
      ? { rows: statement.all(...parameters), changes: 0 }
      : { rows: [], changes: statement.run(...parameters).changes };
  };
  // Synchronous, so nothing else on this connection (the session queue, the memory lanes) runs inside it: a
  // transaction left open across an await would take in their writes, and a rollback would undo them.
  const atomically = sqlite.transaction((queries: readonly CompiledQuery[]) =>
    queries.map((query) => run(query).changes),
  );
  return {
    dialect: 'sqlite',
    db,
    rows: async <R>(query: { compile(): CompiledQuery<R> }) => run(query.compile()).rows as R[],
    changes: async (query) => run(query.compile()).changes,
    async atomic(queries) {
      const compiled = queries.map((query) => query.compile());
      return atomically.immediate(compiled);
    },
    violated(error) {
      if (!(error instanceof Database.SqliteError)) return undefined;
      if (error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'primary';
      return error.code === 'SQLITE_CONSTRAINT_UNIQUE' ? 'unique' : undefined;
    },
  };
}

/** The shared ports over one connection one by one, under the names tests across the suite open them by. */
export const createSqliteTokenPort = (db: SqliteDatabase) => createTokenPort(sqliteStoreDb(db));
export const createSqliteResponsePort = (db: SqliteDatabase) => createResponsePort(sqliteStoreDb(db));
export const createSqliteMediaPort = (db: SqliteDatabase) => createMediaPort(sqliteStoreDb(db));
export const createSqliteApprovalPort = (db: SqliteDatabase) => createApprovalPort(sqliteStoreDb(db));
export const createSqliteRunPort = (db: SqliteDatabase) => createRunPort(sqliteStoreDb(db));
export const createSqliteJobPort = (db: SqliteDatabase) => createJobPort(sqliteStoreDb(db));
export const createSqliteAuditPort = (db: SqliteDatabase) => createAuditPort(sqliteStoreDb(db));
