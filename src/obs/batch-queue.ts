// Buffers records off the request path and hands them to a store port in batches: on a timer, when full, or on flush().
import type { Logger } from 'pino';

export interface BatchQueue<T> {
  enqueue(item: T): void;
  /** Schedules the timed flush (if none is) without enqueuing: `collect` has something new to give it. */
  poke(): void;
  /** Resolves once everything enqueued so far is written; readers await it so they see the latest records. */
  flush(): Promise<void>;
  /** Flushes, then drops later records. */
  close(): Promise<void>;
}

export interface BatchQueueOptions<T> {
  /** Writes one batch (all or nothing); batches are written one after another, in order. */
  write: (batch: T[]) => Promise<void>;
  /** Buffered records are written at most this long after they were enqueued. */
  flushIntervalMs?: number;
  /** A buffer this large is written at once. */
  maxBuffered?: number;
  /**
   * Items made at flush time and written after the enqueued ones (state kept by the caller, e.g. open turns);
   * `requested` is true for a flush() call, false for one the queue made itself (its timer, a full buffer).
   */
  collect?: (requested: boolean) => T[];
  /** Where a failed background write is reported (the batch is dropped: evidence must never stop the gateway). */
  log?: Logger;
}

export function createBatchQueue<T>({
  write,
  flushIntervalMs = 250,
  maxBuffered = 500,
  collect,
  log,
}: BatchQueueOptions<T>): BatchQueue<T> {
  let pending: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let isClosed = false;
  let previous: Promise<void> = Promise.resolve();
  let inFlight = 0;

  function flush(requested = true): Promise<void> {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    const collected = collect?.(requested) ?? [];
    if (pending.length === 0 && collected.length === 0) return previous;
    const batch = collected.length === 0 ? pending : [...pending, ...collected];
    pending = [];
    const start = (): Promise<void> => {
      inFlight += 1;
      return write(batch).finally(() => {
        inFlight -= 1;
      });
    };
    // With nothing in flight the write starts now, not a microtask later, so the store sees it as soon as it can.
    const written = inFlight === 0 ? start() : previous.then(start);
    // A failed batch must not fail the ones after it; its own flush() caller still sees the error.
    previous = written.catch(() => undefined);
    return written;
  }

  function flushInBackground(): void {
    flush(false).catch((error: unknown) =>
      log?.error({ err: error }, 'evidence batch could not be written and was dropped'),
    );
  }

  function schedule(): void {
    if (timer !== undefined) return;
    timer = setTimeout(flushInBackground, flushIntervalMs);
    // Evidence must never keep the process alive.
    timer.unref();
  }

  return {
    enqueue(item) {
      if (isClosed) return;
      pending.push(item);
      if (pending.length >= maxBuffered) flushInBackground();
      else schedule();
    },
    poke() {
      if (!isClosed) schedule();
    },
    flush: () => flush(),
    async close() {
      isClosed = true;
      await flush();
    },
  };
}
