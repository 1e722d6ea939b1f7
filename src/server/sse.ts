// The one Server-Sent Events writer: frames, headers, backpressure, client-close signal, keep-alive and a push queue.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { SERVER_LIMITS } from './limits.js';

/** One SSE frame (WHATWG HTML, "Server-sent events"); a frame with only `comment` is a keep-alive. */
export interface SseFrame {
  event?: string;
  id?: string;
  /** Split on CR, LF and CRLF into one `data:` line each, so any text round-trips. */
  data?: string;
  /** Reconnect delay the client should use, in milliseconds. */
  retryMs?: number;
  comment?: string;
}

/** Spec "Limits": /api/events pings every 15 s and advertises a 3 s reconnect delay. */
export const SSE_KEEP_ALIVE_MS = SERVER_LIMITS.sseKeepAliveMs;
export const SSE_RETRY_MS = SERVER_LIMITS.sseRetryMs;

const LINE_BREAK = /\r\n|\r|\n/;

function checkField(name: 'event' | 'id', value: string): void {
  // A CR or LF would end the field early and let the rest forge another field or frame.
  if (/[\r\n]/.test(value)) throw new TypeError(`SSE ${name} must not contain CR or LF`);
  if (name === 'id' && value.includes('\u0000')) throw new TypeError('SSE id must not contain NUL');
}

export function formatSseFrame(frame: SseFrame): string {
  let text = '';
  if (frame.comment !== undefined) for (const line of frame.comment.split(LINE_BREAK)) text += `: ${line}\n`;
  if (frame.retryMs !== undefined) {
    if (!Number.isInteger(frame.retryMs) || frame.retryMs < 0)
      throw new TypeError('SSE retry must be a non-negative integer');
    text += `retry: ${frame.retryMs}\n`;
  }
  if (frame.id !== undefined) {
    checkField('id', frame.id);
    text += `id: ${frame.id}\n`;
  }
  if (frame.event !== undefined) {
    checkField('event', frame.event);
    text += `event: ${frame.event}\n`;
  }
  if (frame.data !== undefined) for (const line of frame.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  if (text === '') throw new TypeError('SSE frame is empty');
  return `${text}\n`;
}

export type SseState = 'open' | 'closed';

export interface SseStream {
  /** Aborted when the client goes away or the stream is closed; pass it down to the work feeding the stream. */
  readonly signal: AbortSignal;
  state(): SseState;
  /** Writes in call order, waiting for 'drain' when the socket buffer is full; false once the stream is closed. */
  write(frame: SseFrame): Promise<boolean>;
  /** Ends the response (idempotent). */
  close(): void;
}

const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // nginx buffers proxied responses unless told not to, which would hold every event back.
  'x-accel-buffering': 'no',
};

function waitForDrain(raw: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}

/**
 * Takes over the response (reply.hijack) and sends the SSE headers, keeping the headers hooks already set on
 * the reply (x-request-id, rate-limit counters). After this, errors must be reported as frames. The stream is
 * in `openStreams` (when given) until it closes, so shutdown can end it (see endStreamsOnClose).
 */
export function openSseStream(reply: FastifyReply, openStreams?: Set<Pick<SseStream, 'close'>>): SseStream {
  const raw = reply.raw;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  reply.hijack();
  raw.writeHead(200, { ...headers, ...SSE_HEADERS });
  raw.flushHeaders();

  const closed = new AbortController();
  let state: SseState = 'open';
  let queue: Promise<boolean> = Promise.resolve(true);

  const markClosed = (): void => {
    if (state === 'closed') return;
    state = 'closed';
    openStreams?.delete(stream);
    closed.abort();
  };
  raw.on('close', markClosed);
  raw.on('error', markClosed);

  async function writeNow(text: string): Promise<boolean> {
    if (state === 'closed' || raw.destroyed) return false;
    if (!raw.write(text)) await waitForDrain(raw);
    return state === 'open' && !raw.destroyed;
  }

  const stream: SseStream = {
    signal: closed.signal,
    state: () => state,
    write(frame) {
      // Formatting throws on a bad field here, in the caller, rather than inside the write chain.
      const text = formatSseFrame(frame);
      queue = queue.then(() => writeNow(text));
      return queue;
    },
    close() {
      if (state === 'closed') return;
      markClosed();
      raw.end();
    },
  };
  openStreams?.add(stream);
  return stream;
}

/** Ends a plugin's open streams before the server waits for its connections to close. */
export function endStreamsOnClose(scope: FastifyInstance, openStreams: Set<Pick<SseStream, 'close'>>): void {
  scope.addHook('preClose', async function endOpenStreams() {
    for (const stream of openStreams) stream.close();
  });
}

/** The marker `withKeepAlive` yields when the source stayed quiet for a whole interval. */
export const KEEP_ALIVE = Symbol('sse-keep-alive');

/**
 * Yields the source's items and, whenever it stays quiet for `intervalMs`, a KEEP_ALIVE marker; the pending
 * `next()` is carried over so no item is lost. The timer is unref'd and cleared in `finally`.
 */
export async function* withKeepAlive<T>(
  source: AsyncIterable<T>,
  intervalMs: number,
): AsyncGenerator<T | typeof KEEP_ALIVE, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let isDone = false;
  try {
    for (;;) {
      pending ??= iterator.next();
      const tick = new Promise<typeof KEEP_ALIVE>((resolve) => {
        timer = setTimeout(resolve, intervalMs, KEEP_ALIVE);
        timer.unref();
      });
      const winner = await Promise.race([pending, tick]);
      clearTimeout(timer);
      if (winner === KEEP_ALIVE) {
        yield KEEP_ALIVE;
        continue;
      }
      pending = undefined;
      if (winner.done === true) {
        isDone = true;
        return;
      }
      yield winner.value;
    }
  } finally {
    clearTimeout(timer);
    if (!isDone) {
      // Not awaited: a generator source would queue return() behind its pending next().
      iterator.return?.().then(undefined, () => undefined);
    }
  }
}

/**
 * Writes every item of `source` as a frame, with a `: ping` comment whenever the source is quiet for
 * `keepAliveMs`. Stops early when the client goes away.
 */
export async function pipeToSse<T>(
  stream: SseStream,
  source: AsyncIterable<T>,
  toFrame: (item: T) => SseFrame,
  { keepAliveMs = SSE_KEEP_ALIVE_MS }: { keepAliveMs?: number } = {},
): Promise<void> {
  for await (const item of withKeepAlive(source, keepAliveMs)) {
    const isWritten = await stream.write(item === KEEP_ALIVE ? { comment: 'ping' } : toFrame(item));
    if (!isWritten) return;
  }
}

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

/**
 * Aborted when the client goes away before the reply is finished, or when `shutdown` aborts: the signal of one
 * request's work. One controller and two listeners, both gone with the request (cheaper than AbortSignal.any).
 */
export function requestSignal(reply: FastifyReply, shutdown: AbortSignal): AbortSignal {
  const controller = new AbortController();
  if (shutdown.aborted) {
    controller.abort();
    return controller.signal;
  }
  const onShutdown = () => controller.abort();
  shutdown.addEventListener('abort', onShutdown, { once: true });
  const raw = reply.raw;
  raw.once('close', () => {
    shutdown.removeEventListener('abort', onShutdown);
    if (!raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
