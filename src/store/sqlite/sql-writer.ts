// Writes batches of prepared statements, each batch in one IMMEDIATE transaction: on this thread, or on a writer
// thread with its own connection, so the event loop never waits on SQLite for evidence and counters.
import type { SqliteDatabase } from './database.js';
import { startSqliteThread } from './sqlite-thread.js';

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
  /** A writer for these statements, prepared once on the thread's connection. */
  writer(statements: readonly string[]): SqlWriter;
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

export function createWriterThread(path: string): WriterThread {
  const thread = startSqliteThread({ name: 'writer', path, readonly: false, handler: WRITER_HANDLER });
  let sets = 0;
  return {
    writer(statements) {
      const set = sets++;
      thread.post({ type: 'prepare', set, statements });
      return {
        async write(rows) {
          if (rows.length > 0) await thread.request({ type: 'write', set, rows });
        },
        async run(rows) {
          return rows.length > 0 ? thread.request<number>({ type: 'write', set, rows }) : 0;
        },
      };
    },
    close: () => thread.close(),
  };
}
