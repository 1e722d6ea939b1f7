// Writes batches of prepared statements, each batch in one IMMEDIATE transaction: on this thread, or on a writer
// thread with its own connection, started at the first write, so the event loop never waits on SQLite for evidence.
import type { SqliteDatabase } from './database.js';
import { startSqliteThread, type SqliteThread } from './sqlite-thread.js';

export type SqlValue = string | number | bigint | null;
/** One statement run: its index in the writer's statement list, then its positional parameters. */
export type SqlRow = readonly [statement: number, ...params: SqlValue[]];

export interface SqlWriter {
  /** Runs the rows in order in one transaction; rejects (and writes none of them) when one fails. */
  write(rows: readonly SqlRow[]): Promise<void>;
  /** As write, resolving to the number of rows the statements changed (deletes: rows deleted). */
  run(rows: readonly SqlRow[]): Promise<number>;
}

export function createInThreadWriter(db: SqliteDatabase, statements: readonly string[]): SqlWriter {
  const prepared = statements.map((sql) => db.prepare(sql));
  const runAll = db.transaction((rows: readonly SqlRow[]): number => {
    let changes = 0;
    for (const [index, ...params] of rows) changes += prepared[index]?.run(...params).changes ?? 0;
    return changes;
  });
  return {
    async write(rows) {
      if (rows.length > 0) runAll.immediate(rows);
    },
    async run(rows) {
      return rows.length > 0 ? runAll.immediate(rows) : 0;
    },
  };
}

export interface WriterThread {
  /**
   * A writer for these statements, prepared once on the thread's connection. With `here` (a writer on this thread's
   * connection), its batches run here until another writer has started the thread, and never start it themselves.
   */
  writer(statements: readonly string[], here?: SqlWriter): SqlWriter;
  /** Waits for every batch sent so far, then closes the thread's connection and ends the thread. */
  close(): Promise<void>;
}

/**
 * The thread's handler: each statement set prepared once, each batch of rows run in one IMMEDIATE transaction, whose
 * reply is the number of rows it changed.
 */
const WRITER_HANDLER = `
const sets = [];
const run = db.transaction((statements, rows) => {
  let changes = 0;
  for (const row of rows) changes += statements[row[0]].run(...row.slice(1)).changes;
  return changes;
});
function handle(message) {
  if (message.type === 'prepare') sets[message.set] = message.statements.map((sql) => db.prepare(sql));
  else return run.immediate(sets[message.set], message.rows);
}
`;

/**
 * The thread starts at the first write of a writer without `here`, not before: an idle gateway, whose only writes are
 * rare rows like its boot posture, runs no thread (each costs an isolate of its own, about 10 MB). Statement sets are
 * sent to the thread once it starts, in the order made.
 */
export function createWriterThread(path: string): WriterThread {
  const prepares: Record<string, unknown>[] = [];
  let thread: SqliteThread | undefined;
  let isClosed = false;
  const started = (): SqliteThread | undefined => {
    if (thread === undefined && !isClosed) {
      thread = startSqliteThread({ name: 'writer', path, readonly: false, handler: WRITER_HANDLER });
      for (const message of prepares) thread.post(message);
    }
    return thread;
  };
  const request = <T>(message: Record<string, unknown>): Promise<T> =>
    started()?.request<T>(message) ?? Promise.reject(new Error('the SQLite writer thread has ended'));
  return {
    writer(statements, here) {
      const set = prepares.length;
      const prepare = { type: 'prepare', set, statements };
      prepares.push(prepare);
      thread?.post(prepare);
      // A write here runs synchronously, so a later batch on the thread can never overtake it.
      const isHere = () => here !== undefined && thread === undefined && !isClosed;
      return {
        async write(rows) {
          if (isHere()) await here?.write(rows);
          else if (rows.length > 0) await request({ type: 'write', set, rows });
        },
        async run(rows) {
          if (isHere()) return (await here?.run(rows)) ?? 0;
          return rows.length > 0 ? request<number>({ type: 'write', set, rows }) : 0;
        },
      };
    },
    async close() {
      isClosed = true;
      await thread?.close();
    },
  };
}
