// Upstream HTTP for the wire adapters: one keep-alive undici Pool per provider origin (made at its first request), fixed
// headers, a deadline per call.
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Pool } from 'undici';
import { protocolError } from './errors.js';

/** Idle keep-alive sockets are kept this long unless the server's Keep-Alive header says less. */
export const KEEP_ALIVE_TIMEOUT_MS = 30_000;

export interface WireHttpOptions {
  baseUrl: string;
  /** Sent on every request; lower-cased names. Built once per adapter. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Connections per origin; undefined is unlimited. */
  maxConnections?: number | undefined;
  /** The W3C traceparent a POST made now sends (a traced model call), read per request; absent while tracing is off. */
  traceparent?: (() => string | undefined) | undefined;
}

export interface WireResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/**
 * What aborts one upstream request: an AbortSignal, or a CallDeadline (undici also takes an emitter of `abort` that
 * has `aborted` and `reason`, and that costs a call far less than an AbortController and its listeners).
 */
export type UpstreamSignal = AbortSignal | CallDeadline;

export interface WireHttp {
  /** The baseUrl's path without a trailing slash (`/v1`), to which protocol paths are appended. */
  readonly basePath: string;
  /** One POST of a JSON body; the signal (a CallDeadline) aborts the request and its response body. */
  post(path: string, body: string, signal: UpstreamSignal): Promise<WireResponse>;
  /** One GET with the same headers. */
  get(path: string, signal: UpstreamSignal): Promise<WireResponse>;
  /** Starts the deadline of one call, linked to the caller's signal. */
  deadline(caller: AbortSignal): CallDeadline;
  close(): Promise<void>;
}

function onDeadline(deadline: CallDeadline): void {
  deadline.expire();
}

/**
 * What one upstream call runs under, passed to undici as its signal: it emits `abort` when the caller's signal does or
 * when timeoutMs passes, once. A class with `handleEvent`, so starting a call allocates no closures.
 */
export class CallDeadline extends EventEmitter {
  readonly #caller: AbortSignal;
  readonly #timeoutMs: number;
  readonly #timer: NodeJS.Timeout;
  #isTimedOut = false;
  #isAborted = false;
  #reason: unknown;

  constructor(caller: AbortSignal, timeoutMs: number) {
    super();
    this.#caller = caller;
    this.#timeoutMs = timeoutMs;
    if (caller.aborted) this.#abort(caller.reason);
    else caller.addEventListener('abort', this, { once: true });
    this.#timer = setTimeout(onDeadline, timeoutMs, this);
    this.#timer.unref();
  }

  /** Read by undici, as on an AbortSignal. */
  get aborted(): boolean {
    return this.#isAborted;
  }

  /** Read by undici, as on an AbortSignal: what the request fails with. */
  get reason(): unknown {
    return this.#reason;
  }

  isTimedOut(): boolean {
    return this.#isTimedOut;
  }

  /** The caller's signal fired. */
  handleEvent(): void {
    this.#abort(this.#caller.reason);
  }

  expire(): void {
    this.#isTimedOut = true;
    this.#abort(new DOMException(`model call exceeded ${this.#timeoutMs} ms`, 'TimeoutError'));
  }

  /** Stops the timer and detaches from the caller; the request itself is ended by its body. */
  end(): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener('abort', this);
  }

  #abort(reason: unknown): void {
    if (this.#isAborted) return;
    this.#isAborted = true;
    this.#reason = reason;
    this.emit('abort');
  }
}

function flatten(headers: Readonly<Record<string, string>>): string[] {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers)) flat.push(name, value);
  return flat;
}

export function createWireHttp(options: WireHttpOptions): WireHttp {
  const url = new URL(options.baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  const headers = flatten(options.headers);
  // The pool, and undici with it, comes at the first request: a gateway whose models are never called never loads it.
  let pool: Pool | undefined;
  let loading: Promise<Pool> | undefined;
  const loaded = async (): Promise<Pool> => {
    const { Pool: UndiciPool } = await import('./undici-pool.js');
    pool ??= new UndiciPool(url.origin, {
      connections: options.maxConnections ?? null,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // The CallDeadline bounds the whole call; undici's own per-phase timers would only add work per request.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    return pool;
  };
  let isClosed = false;
  const request = (requested: Parameters<Pool['request']>[0]): Promise<WireResponse> => {
    if (pool !== undefined) return pool.request(requested);
    // As a closed pool would: no new connections after close().
    if (isClosed) return Promise.reject(new Error(`the connection pool to ${url.origin} is closed`));
    return (loading ??= loaded()).then((ready) => ready.request(requested));
  };
  return {
    basePath,
    post: (path, body, signal) => {
      const traceparent = options.traceparent?.();
      return request({
        method: 'POST',
        path,
        headers: traceparent === undefined ? headers : [...headers, 'traceparent', traceparent],
        body,
        signal,
      });
    },
    get: (path, signal) => request({ method: 'GET', path, headers, signal }),
    deadline: (caller) => new CallDeadline(caller, options.timeoutMs),
    close: async () => {
      isClosed = true;
      if (loading !== undefined) await (await loading).close();
    },
  };
}

/** Reads a whole (non-streamed) body as UTF-8, refusing more than maxBytes. */
export async function readText(body: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const iterable: AsyncIterable<Buffer> = body;
  for await (const chunk of iterable) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw protocolError(`response body over ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0].toString('utf8');
  return Buffer.concat(chunks, size).toString('utf8');
}
