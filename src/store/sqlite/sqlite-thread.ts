// A connection to the gateway's SQLite file on a thread of its own: each message asking for a reply gets one, in order.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

type Reply = { id: number; result?: unknown; error?: string };

/**
 * Evaluated as a CommonJS script before the handler's source, so the thread needs no build step of its own. It opens
 * the same file (already migrated by the main connection) with the main connection's pragmas, and passes every message
 * to the handler's `handle(message)`: a message with an `id` is answered with its result or its error, in order.
 */
const PRELUDE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: workerData.readonly });
if (!workerData.readonly) {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
}
db.pragma('busy_timeout = 5000');
db.pragma('mmap_size = ${256 * 1024 * 1024}');
parentPort.on('message', (message) => {
  if (message.type === 'close') {
    db.close();
    parentPort.postMessage({ id: message.id });
    parentPort.close();
    return;
  }
  if (message.id === undefined) {
    handle(message);
    return;
  }
  try {
    parentPort.postMessage({ id: message.id, result: handle(message) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error && error.message ? error.message : error) });
  }
});
`;

export interface SqliteThreadOptions {
  /** What the thread is for, in its errors: 'writer', 'reader'. */
  name: string;
  path: string;
  /** Opens the file read-only: the thread only reads. */
  readonly: boolean;
  /** Script text defining `function handle(message)`, with `db` (the thread's connection) in scope. */
  handler: string;
}

export interface SqliteThread {
  /** Sends a message and waits for the handler's result; rejects with its error, or once the thread has ended. */
  request<T>(message: Record<string, unknown>): Promise<T>;
  /** Sends a message that wants no reply (an error in its handling ends the thread). */
  post(message: Record<string, unknown>): void;
  /** True once the thread has ended (closed, or failed): every request since has been rejected. */
  readonly ended: boolean;
  /** Waits for every message sent so far, then closes the thread's connection and ends the thread. */
  close(): Promise<void>;
}

export function startSqliteThread({ name, path, readonly, handler }: SqliteThreadOptions): SqliteThread {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const thread = new Worker(`${PRELUDE}\n${handler}`, { eval: true, workerData: { path, driver, readonly } });
  const waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;

  const settleAll = (error: Error) => {
    failure ??= error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  thread.on('message', (reply: Reply) => {
    const entry = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (reply.error === undefined) entry?.resolve(reply.result);
    else entry?.reject(new Error(reply.error));
  });
  thread.on('error', (error) => settleAll(error));
  thread.on('exit', () => settleAll(new Error(`the SQLite ${name} thread has ended`)));

  function request<T>(message: Record<string, unknown>): Promise<T> {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (result: unknown) => void, reject });
      thread.postMessage({ ...message, id });
    });
  }

  return {
    request,
    post(message) {
      if (failure === undefined) thread.postMessage(message);
    },
    get ended() {
      return failure !== undefined;
    },
    async close() {
      if (failure !== undefined) return;
      await request({ type: 'close' });
      await thread.terminate();
    },
  };
}
