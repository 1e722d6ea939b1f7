// Runs read-only queries on a reader thread with its own connection to the file, so one query (the memory search's
// lexical lane) runs while this thread does other work (its vector lane). The thread starts at its first use.
import type { SqlValue } from './sql-writer.js';
import { startSqliteThread, type SqliteThread } from './sqlite-thread.js';

/** Statements the thread keeps prepared; past it, it starts over (queries come in a few shapes). */
const STATEMENTS_KEPT = 64;

/** The thread's handler: answers 'ready' once its connection is open; each query prepared once, its rows returned as arrays of their columns. */
const READER_HANDLER = `
const statements = new Map();
function handle(message) {
  if (message.type === 'ready') return true;
  let statement = statements.get(message.sql);
  if (statement === undefined) {
    if (statements.size >= ${STATEMENTS_KEPT}) statements.clear();
    statement = db.prepare(message.sql).raw();
    statements.set(message.sql, statement);
  }
  return statement.all(...message.values);
}
`;

export interface ReaderThread {
  /**
   * Whether queries can go to the thread: false until it has started (the first call starts it) and after it ended.
   * The caller runs the query on its own connection meanwhile: the thread is a way to run alongside, never the only one.
   */
  available(): boolean;
  /** The query's rows, each an array of its columns; rejects with the query's error. */
  rows(sql: string, values: readonly SqlValue[]): Promise<unknown[][]>;
  close(): Promise<void>;
}

export function createReaderThread(path: string): ReaderThread {
  let thread: SqliteThread | undefined;
  let online = false;
  return {
    available() {
      if (thread === undefined) {
        const started = startSqliteThread({ name: 'reader', path, readonly: true, handler: READER_HANDLER });
        thread = started;
        void started.request({ type: 'ready' }).then(
          () => (online = true),
          () => undefined,
        );
      }
      return online && !thread.ended;
    },
    rows(sql, values) {
      if (thread === undefined) return Promise.reject(new Error('the SQLite reader thread has not started'));
      return thread.request({ sql, values });
    },
    async close() {
      await thread?.close();
    },
  };
}
