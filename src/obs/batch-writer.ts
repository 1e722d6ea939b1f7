// Buffers SQLite writes and runs them in one transaction per batch: on a timer, when the buffer is full, or on flush().
import type { Logger } from 'pino';
import type { SqliteDatabase } from '../store/sqlite/index.js';

export interface BatchWriter {
  enqueue(write: () => void): void;
  /** Writes everything buffered now; readers call it first so they see the latest records. */
  flush(): void;
  /** Flushes, then drops later writes. */
  close(): void;
}

export interface BatchWriterOptions {
  db: SqliteDatabase;
  /** Buffered writes are flushed at most this long after they were made. */
  flushIntervalMs?: number;
  /** A buffer this large is flushed at once. */
  maxBuffered?: number;
  /** Where a failed timed flush is reported (the batch is dropped: evidence must never stop the gateway). */
  log?: Logger;
}

export function createBatchWriter({ db, flushIntervalMs = 250, maxBuffered = 500, log }: BatchWriterOptions): BatchWriter {
  let pending: (() => void)[] = [];
  let timer: NodeJS.Timeout | undefined;
  let isClosed = false;
  const writeAll = db.transaction((writes: (() => void)[]) => {
    for (const write of writes) write();
  });

  function flush(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending.length === 0 || !db.open) return;
    const writes = pending;
    pending = [];
    writeAll(writes);
  }

  return {
    enqueue(write) {
      if (isClosed) return;
      pending.push(write);
      if (pending.length >= maxBuffered) flush();
      else if (timer === undefined) {
        timer = setTimeout(function timedFlush() {
          try {
            flush();
          } catch (error) {
            // A timer callback that throws would end the process (SQLITE_BUSY, SQLITE_FULL).
            log?.error({ err: error }, 'evidence batch could not be written and was dropped');
          }
        }, flushIntervalMs);
        // Evidence must never keep the process alive.
        timer.unref();
      }
    },
    flush,
    close() {
      flush();
      isClosed = true;
    },
  };
}
