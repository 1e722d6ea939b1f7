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

/**
 * How long a query waits for the thread once this thread is free to take its rows (it did other work meanwhile), before
 * running the query itself: a thread slowed by a cold cache or a busy machine never holds a search up for long.
 */
export const READER_GRACE_MS = 2;

export interface ReaderThread {
  /**
   * Whether queries can go to the thread: false until it has started (the first call starts it) and after it ended.
   * The caller runs the query on its own connection meanwhile: the thread is a way to run alongside, never the only one.
   */
  available(): boolean;
  /**
   * The query's rows, each an array of its columns, from the thread; from `runHere` (this thread's connection) when the
   * thread fails the query or has not answered `graceMs` (READER_GRACE_MS) after this thread was next free.
   */
  rows(sql: string, values: readonly SqlValue[], runHere: () => unknown[][]): Promise<unknown[][]>;
  close(): Promise<void>;
}

export function createReaderThread(path: string, { graceMs = READER_GRACE_MS }: { graceMs?: number } = {}): ReaderThread {
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
    rows(sql, values, runHere) {
      if (thread === undefined) return Promise.resolve().then(runHere);
      const asked = thread.request<unknown[][]>({ sql, values });
      return new Promise((resolve, reject) => {
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        const settle = (take: () => unknown[][]) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          try {
            resolve(take());
          } catch (error) {
            reject(error);
          }
        };
        asked.then(
          (rows) => settle(() => rows),
          () => settle(runHere),
        );
        // The check phase comes after the loop has delivered the thread's messages: the grace starts once this thread
        // is free, and counts only time the thread keeps it waiting.
        setImmediate(() => {
          if (!settled) timer = setTimeout(() => settle(runHere), graceMs);
        });
      });
    },
    async close() {
      await thread?.close();
    },
  };
}
