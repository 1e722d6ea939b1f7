// The one Server-Sent Events writer: frames, headers, backpressure, client-close signal and keep-alive.
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
const PING: SseFrame = { comment: 'ping' };

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
  if (frame.data !== undefined) {
    // Most data is one line (JSON has none): no split and no array for it.
    if (!frame.data.includes('\n') && !frame.data.includes('\r')) text += `data: ${frame.data}\n`;
    else for (const line of frame.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  }
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
  /** Whether the headers went out; before that a deferred stream's request may still be answered with a status. */
  hasStarted(): boolean;
  /** Gives a deferred stream that has not started up without a word: the caller answers the request with an error. */
  abandon(): void;
}

export interface SseStreamOptions {
  /**
   * The headers wait for the first frame written, and these frames go first: until then a refusal (a budget at its
   * limit before the model was asked) can still be answered with its HTTP status. A keep-alive ping starts it too.
   */
  prelude?: readonly SseFrame[];
}

const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // nginx buffers proxied responses unless told not to, which would hold every event back.
  'x-accel-buffering': 'no',
};

const WRITE_DONE = Promise.resolve(true);
const WRITE_REFUSED = Promise.resolve(false);

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
export function openSseStream(
  reply: FastifyReply,
  openStreams?: Set<Pick<SseStream, 'close'>>,
  { prelude }: SseStreamOptions = {},
): SseStream {
  const raw = reply.raw;
  let hasStarted = false;
  const start = (): void => {
    hasStarted = true;
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
    reply.hijack();
    raw.writeHead(200, { ...headers, ...SSE_HEADERS });
    if (prelude === undefined) raw.flushHeaders();
    else for (const frame of prelude) raw.write(formatSseFrame(frame));
  };
  if (prelude === undefined) start();

  const closed = new AbortController();
  let state: SseState = 'open';
  /** The last write still waiting for 'drain'; later writes queue behind it. Undefined while the socket takes writes. */
  let waiting: Promise<boolean> | undefined;

  const markClosed = (): void => {
    if (state === 'closed') return;
    state = 'closed';
    openStreams?.delete(stream);
    closed.abort();
  };
  raw.on('close', markClosed);
  raw.on('error', markClosed);

  const isOpen = (): boolean => state === 'open' && !raw.destroyed;
  /** Waits behind `write` until it settles; the queue is empty again once the last waiting write is done. */
  const queued = (write: Promise<boolean>): Promise<boolean> => {
    waiting = write;
    void write.then(() => {
      if (waiting === write) waiting = undefined;
    });
    return write;
  };
  let isCorked = false;
  const uncork = (): void => {
    isCorked = false;
    raw.uncork();
  };
  /**
   * A write the socket takes at once settles without a promise chain; one it refuses waits for 'drain'. Frames written
   * in one turn of the event loop (deltas of one upstream read) leave in one socket write.
   */
  function writeNow(text: string): Promise<boolean> {
    if (!isOpen()) return WRITE_REFUSED;
    if (!hasStarted) start();
    if (!isCorked) {
      isCorked = true;
      raw.cork();
      setImmediate(uncork);
    }
    if (raw.write(text)) return WRITE_DONE;
    return queued(waitForDrain(raw).then(isOpen));
  }
  async function writeAfter(previous: Promise<boolean>, text: string): Promise<boolean> {
    await previous;
    if (!isOpen()) return false;
    if (!raw.write(text)) await waitForDrain(raw);
    return isOpen();
  }

  const stream: SseStream = {
    signal: closed.signal,
    state: () => state,
    write(frame) {
      // Formatting throws on a bad field here, in the caller, rather than inside the write chain.
      const text = formatSseFrame(frame);
      return waiting === undefined ? writeNow(text) : queued(writeAfter(waiting, text));
    },
    close() {
      if (state === 'closed') return;
      // A deferred stream closed before any frame: its (empty) answer goes out now, or the gone client's socket is ours.
      if (!hasStarted) {
        if (raw.destroyed) reply.hijack();
        else start();
      }
      markClosed();
      raw.end();
    },
    hasStarted: () => hasStarted,
    abandon() {
      if (!hasStarted) markClosed();
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

/**
 * Writes every item of `source` as a frame, with a `: ping` comment whenever no item came for a whole `keepAliveMs`
 * (one timer per stream, not one per item). Stops early when the client goes away.
 */
export async function pipeToSse<T>(
  stream: SseStream,
  source: AsyncIterable<T>,
  toFrame: (item: T) => SseFrame,
  { keepAliveMs = SSE_KEEP_ALIVE_MS }: { keepAliveMs?: number } = {},
): Promise<void> {
  let isQuiet = true;
  const keepAlive = setInterval(() => {
    if (isQuiet) void stream.write(PING);
    isQuiet = true;
  }, keepAliveMs);
  keepAlive.unref();
  try {
    for await (const item of source) {
      isQuiet = false;
      if (!(await stream.write(toFrame(item)))) return;
    }
  } finally {
    clearInterval(keepAlive);
  }
}

/** The controllers of the requests in flight under each shutdown signal, which listens once for all of them. */
const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

function requestsUnder(shutdown: AbortSignal): Set<AbortController> {
  let requests = inFlight.get(shutdown);
  if (requests === undefined) {
    const created = new Set<AbortController>();
    shutdown.addEventListener(
      'abort',
      () => {
        for (const controller of created) controller.abort();
        created.clear();
      },
      { once: true },
    );
    inFlight.set(shutdown, created);
    requests = created;
  }
  return requests;
}

/**
 * Aborted when the client goes away before the reply is finished, or when `shutdown` aborts: the signal of one
 * request's work. One controller per request, in a set the shutdown signal aborts at once (no listener per request).
 */
export function requestSignal(reply: FastifyReply, shutdown: AbortSignal): AbortSignal {
  const controller = new AbortController();
  if (shutdown.aborted) {
    controller.abort();
    return controller.signal;
  }
  const requests = requestsUnder(shutdown);
  requests.add(controller);
  const raw = reply.raw;
  raw.once('close', () => {
    requests.delete(controller);
    if (!raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
