// Writes batches of prepared statements, each batch in one IMMEDIATE transaction: on this thread, or on a writer
// thread with its own connection, so the event loop never waits on SQLite for evidence and counters.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './database.js';

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

type Reply = { id: number; error?: string };

/**
 * The thread's code, evaluated as a CommonJS script so it needs no build step of its own. It opens the same file
 * (already migrated by the main connection) with the same pragmas, and answers every message in order.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const sets = [];
const run = db.transaction((statements, rows) => {
  for (const row of rows) statements[row[0]].run(...row.slice(1));
});
parentPort.on('message', (message) => {
  if (message.type === 'prepare') {
    sets[message.set] = message.statements.map((sql) => db.prepare(sql));
    return;
  }
  if (message.type === 'close') {
    db.close();
    parentPort.postMessage({ id: message.id });
    parentPort.close();
    return;
  }
  try {
    run.immediate(sets[message.set], message.rows);
    parentPort.postMessage({ id: message.id });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error && error.message ? error.message : error) });
  }
});
`;

export function createWriterThread(path: string): WriterThread {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const thread = new Worker(THREAD_SOURCE, { eval: true, workerData: { path, driver } });
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let sets = 0;
  let failure: Error | undefined;

  const settleAll = (error: Error) => {
    failure = error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  thread.on('message', (reply: Reply) => {
    const entry = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (reply.error === undefined) entry?.resolve();
    else entry?.reject(new Error(reply.error));
  });
  thread.on('error', (error) => settleAll(error));
  thread.on('exit', () => settleAll(new Error('the SQLite writer thread has ended')));

  function send(message: Record<string, unknown>): Promise<void> {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      thread.postMessage({ ...message, id });
    });
  }

  return {
    writer(statements) {
      const set = sets++;
      thread.postMessage({ type: 'prepare', set, statements });
      return {
        async write(rows) {
          if (rows.length > 0) await send({ type: 'write', set, rows });
        },
      };
    },
    async close() {
      if (failure !== undefined) return;
      await send({ type: 'close' });
      await thread.terminate();
    },
  };
}
