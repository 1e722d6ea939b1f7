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
}

export function createInThreadWriter(db: SqliteDatabase, statements: readonly string[]): SqlWriter {
  const prepared = statements.map((sql) => db.prepare(sql));
  const run = db.transaction((rows: readonly SqlRow[]) => {
    for (const [index, ...params] of rows) prepared[index]?.run(...params);
  });
  return {
    async write(rows) {
      if (rows.length > 0) run.immediate(rows);
    },
  };
}

export interface WriterThread {
  /** A writer for these statements, prepared once on the thread's connection. */
  writer(statements: readonly string[]): SqlWriter;
  /** Waits for every batch sent so far, then closes the thread's connection and ends the thread. */
  close(): Promise<void>;
}

/** The thread's handler: each statement set prepared once, each batch of rows run in one IMMEDIATE transaction. */
const WRITER_HANDLER = `
const sets = [];
const run = db.transaction((statements, rows) => {
  for (const row of rows) statements[row[0]].run(...row.slice(1));
});
function handle(message) {
  if (message.type === 'prepare') sets[message.set] = message.statements.map((sql) => db.prepare(sql));
  else run.immediate(sets[message.set], message.rows);
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
      };
    },
    close: () => thread.close(),
  };
}
