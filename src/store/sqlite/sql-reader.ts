// Runs read-only queries on a reader thread with its own connection to the file, so one query (the memory search's
// lexical lane) runs while this thread does other work (its vector lane). The thread starts at its first use.
import { startSqliteThread, type SqliteThread } from './sqlite-thread.js';

/** Statements the thread keeps prepared; past it, it starts over (queries come in a few shapes). */
const STATEMENTS_KEPT = 64;

/**
 * The thread's handler: answers 'ready' once its connection is open; each query prepared once, its rows' columns (all
 * numbers) returned end to end in one Float64Array: one buffer to send back, where rows of arrays are many objects.
 */
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
  const rows = statement.all(...message.values);
  const packed = new Float64Array(rows.length * statement.columns().length);
  let at = 0;
  for (const row of rows) for (const value of row) packed[at++] = value;
  return packed;
}
`;

/**
 * How long a query waits for the thread before it is run here instead: a guard against a stalled thread, far past
 * the time of any healthy query (the lexical lane's word budget keeps its queries to a few milliseconds).
 */
export const READER_STALL_MS = 250;

export interface ReaderThread {
  /**
   * Whether queries can go to the thread: false until it has started (the first call starts it) and after it ended.
   * The caller runs the query on its own connection meanwhile: the thread is a way to run alongside, never the only one.
   */
  available(): boolean;
  /**
   * The rows of a query whose columns are all numbers, their columns end to end, one row after another: from the
   * thread when it is idle; from `runHere` (this thread's connection) when the thread is still busy with an earlier
   * query, fails this one, or has not answered within `stallMs` (READER_STALL_MS). A busy thread would make the query
   * wait for the one before it, while this thread can run it now; a query is never run twice, except after a stall.
   */
  numbers(sql: string, values: readonly unknown[], runHere: () => Float64Array): Promise<Float64Array>;
  close(): Promise<void>;
}

export function createReaderThread(
  path: string,
  { stallMs = READER_STALL_MS }: { stallMs?: number } = {},
): ReaderThread {
  let thread: SqliteThread | undefined;
  let online = false;
  let busy = false;
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
    numbers(sql, values, runHere) {
      if (thread === undefined || busy) return Promise.resolve().then(runHere);
      busy = true;
      const asked = thread.request<Float64Array>({ sql, values });
      return new Promise((resolve, reject) => {
        let settled = false;
        const settle = (take: () => Float64Array) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          try {
            resolve(take());
          } catch (error) {
            reject(error);
          }
        };
        const timer = setTimeout(() => settle(runHere), stallMs);
        asked.then(
          (packed) => {
            busy = false;
            settle(() => packed);
          },
          () => {
            busy = false;
            settle(runHere);
          },
        );
      });
    },
    async close() {
      await thread?.close();
    },
  };
}
