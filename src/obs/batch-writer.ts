// Buffers SQLite writes and runs them in one transaction per batch: on a timer, when the buffer is full, or on flush().
import type { SqliteDatabase } from '../store/index.js';

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
}

export function createBatchWriter({ db, flushIntervalMs = 250, maxBuffered = 500 }: BatchWriterOptions): BatchWriter {
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
        timer = setTimeout(flush, flushIntervalMs);
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
