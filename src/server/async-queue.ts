// A push queue read as an async iterable by one consumer: bus listeners and text deltas in, SSE frames out.

export interface AsyncQueue<T> extends AsyncIterable<T> {
  /** Ignored once the queue has ended. */
  push(item: T): void;
  /** Lets the consumer drain what is queued, then finish. */
  end(): void;
  /** Items dropped because the queue was full (oldest first). */
  dropped(): number;
  /**
   * Resolves once the queued size is back at `highWaterMark` or below, or the queue ended; undefined when it already
   * is. A producer that can wait awaits it after each push, so a slow consumer paces the producer (backpressure).
   */
  room(): Promise<void> | undefined;
}

export interface AsyncQueueOptions<T = unknown> {
  /** Ends the queue when aborted. */
  signal?: AbortSignal;
  /** At most this many waiting items; beyond it the oldest is dropped. Default: unbounded. */
  maxItems?: number;
  /** `room()` waits while the queued items' total `sizeOf` is above this. Default: unbounded. */
  highWaterMark?: number;
  /** The size of one item for `highWaterMark`; default 1 (a count of items). */
  sizeOf?: (item: T) => number;
}

/** Turns push callbacks (bus listeners, text deltas) into an async iterable with one consumer. */
export function createAsyncQueue<T>({
  signal,
  maxItems = Number.POSITIVE_INFINITY,
  highWaterMark = Number.POSITIVE_INFINITY,
  sizeOf = () => 1,
}: AsyncQueueOptions<T> = {}): AsyncQueue<T> {
  const items: T[] = [];
  let waiter: ((result: IteratorResult<T>) => void) | undefined;
  let isEnded = false;
  let droppedCount = 0;
  let queuedSize = 0;
  let roomWaiters: (() => void)[] = [];

  const wakeProducers = (): void => {
    if (roomWaiters.length === 0 || (!isEnded && queuedSize > highWaterMark)) return;
    const waiting = roomWaiters;
    roomWaiters = [];
    for (const wake of waiting) wake();
  };
  const take = (): T => {
    const item = items.shift() as T;
    queuedSize -= sizeOf(item);
    wakeProducers();
    return item;
  };

  const end = (): void => {
    if (isEnded) return;
    isEnded = true;
    signal?.removeEventListener('abort', end);
    wakeProducers();
    if (waiter !== undefined && items.length === 0) {
      const wake = waiter;
      waiter = undefined;
      wake({ done: true, value: undefined });
    }
  };
  if (signal !== undefined) {
    if (signal.aborted) end();
    else signal.addEventListener('abort', end, { once: true });
  }

  return {
    push(item) {
      if (isEnded) return;
      if (waiter !== undefined) {
        const wake = waiter;
        waiter = undefined;
        wake({ done: false, value: item });
        return;
      }
      items.push(item);
      queuedSize += sizeOf(item);
      if (items.length > maxItems) {
        take();
        droppedCount += 1;
      }
    },
    end,
    dropped: () => droppedCount,
    room() {
      if (isEnded || queuedSize <= highWaterMark) return undefined;
      return new Promise<void>((resolve) => roomWaiters.push(resolve));
    },
    [Symbol.asyncIterator]() {
      return {
        next() {
          if (items.length > 0) return Promise.resolve({ done: false, value: take() });
          if (isEnded) return Promise.resolve({ done: true, value: undefined });
          return new Promise<IteratorResult<T>>((resolve) => {
            waiter = resolve;
          });
        },
        return() {
          end();
          items.length = 0;
          queuedSize = 0;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}
