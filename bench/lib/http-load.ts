// Keep-alive HTTP/1.1 load over raw TCP sockets: each connection sends a request, reads the whole response, repeats.
//
// A raw client costs far less per request than node:http's, so on a 2-core machine the load generator
// saturates later than the server under test and the baseline is not capped by the client.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LoadConnections, LoadRun } from './load-run.js';

export interface HttpRequestSpec {
  method: string;
  /** Path and query, e.g. `/health`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpLoadTarget {
  host: string;
  port: number;
  /**
   * Further ports on `host` serving the same API (replicas): the connections are dealt in turn over
   * `[port, ...replicaPorts]`, so each replica gets an equal share of the connections.
   */
  replicaPorts?: readonly number[];
  connections: number;
  request: HttpRequestSpec;
  /** Status a response must have to count as a success; any 2xx when absent. */
  expectStatus?: number;
  /**
   * Text the whole response body must contain to count as a success, e.g. `data: [DONE]` for a stream that
   * must run to its end (a stream cut by an error frame still has status 200).
   */
  expectBodyIncludes?: string;
}

/** The request's bytes, written as-is for every request of the run. */
export function encodeRequest(
  host: string,
  port: number,
  { method, path, headers = {}, body }: HttpRequestSpec,
): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body, 'utf8');
  if (body !== undefined) lines.push(`Content-Length: ${payload.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}

const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const LINE_END = Buffer.from('\r\n', 'latin1');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:[ \t]*[^\r]*chunked/i;
/** Responses whose headers exceed this are treated as a protocol error rather than buffered forever. */
const MAX_HEADER_BYTES = 64 * 1024;

export type ResponseHandler = (status: number, body: Buffer) => void;

/**
 * Frames HTTP/1.1 responses out of a byte stream: Content-Length and chunked bodies, bodiless 1xx/204/304.
 * Throws on anything else, which the connection counts as an error.
 */
export class HttpResponseParser {
  #buffer: Buffer = Buffer.alloc(0);
  readonly #onResponse: ResponseHandler;

  constructor(onResponse: ResponseHandler) {
    this.#onResponse = onResponse;
  }

  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (this.#buffer.length > 0) {
      const consumed = this.#parseOne();
      if (consumed === 0) return;
      this.#buffer = this.#buffer.subarray(consumed);
    }
  }

  /** Parses one response at the start of the buffer and returns its length, or 0 when it is incomplete. */
  #parseOne(): number {
    const buffer = this.#buffer;
    const headerEnd = buffer.indexOf(HEADER_END);
    if (headerEnd < 0) {
      if (buffer.length > MAX_HEADER_BYTES) throw new Error('HTTP response headers too large');
      return 0;
    }
    const head = buffer.toString('latin1', 0, headerEnd);
    const status = Number(head.slice(9, 12));
    if (!head.startsWith('HTTP/1.') || !Number.isInteger(status)) throw new Error('not an HTTP/1.x response');
    const bodyStart = headerEnd + HEADER_END.length;
    const length = CONTENT_LENGTH.exec(head)?.[1];
    if (length !== undefined) {
      const bodyEnd = bodyStart + Number(length);
      if (buffer.length < bodyEnd) return 0;
      this.#emit(status, buffer.subarray(bodyStart, bodyEnd));
      return bodyEnd;
    }
    if (CHUNKED.test(head)) return this.#parseChunked(status, bodyStart);
    if ((status >= 100 && status < 200) || status === 204 || status === 304) {
      this.#emit(status, Buffer.alloc(0));
      return bodyStart;
    }
    throw new Error(`HTTP ${status} response has neither Content-Length nor chunked encoding`);
  }

  #parseChunked(status: number, bodyStart: number): number {
    const buffer = this.#buffer;
    const parts: Buffer[] = [];
    let offset = bodyStart;
    for (;;) {
      const lineEnd = buffer.indexOf(LINE_END, offset);
      if (lineEnd < 0) return 0;
      // parseInt stops at a chunk extension (`;name=value`), which is ignored.
      const size = Number.parseInt(buffer.toString('latin1', offset, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('bad chunk size');
      offset = lineEnd + LINE_END.length;
      if (size === 0) break;
      if (buffer.length < offset + size + LINE_END.length) return 0;
      parts.push(buffer.subarray(offset, offset + size));
      offset += size + LINE_END.length;
    }
    // After the last chunk: either the final CRLF at once, or trailer fields ending with an empty line.
    let end: number;
    if (buffer.length < offset + LINE_END.length) return 0;
    if (buffer[offset] === 13 && buffer[offset + 1] === 10) end = offset + LINE_END.length;
    else {
      const trailersEnd = buffer.indexOf(HEADER_END, offset);
      if (trailersEnd < 0) return 0;
      end = trailersEnd + HEADER_END.length;
    }
    this.#emit(status, Buffer.concat(parts));
    return end;
  }

  #emit(status: number, body: Buffer): void {
    // 1xx responses are interim; the final response follows on the same connection.
    if (status >= 100 && status < 200) return;
    this.#onResponse(status, body);
  }
}

function openSocket(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Opens every connection up front, so connection setup is not part of the measurement. */
export async function connectHttpLoad(target: HttpLoadTarget): Promise<LoadConnections> {
  const ports = [target.port, ...(target.replicaPorts ?? [])];
  const portOf = (index: number) => ports[index % ports.length] ?? target.port;
  const requestBytes = ports.map((port) => encodeRequest(target.host, port, target.request));
  const sockets = await Promise.all(
    Array.from({ length: target.connections }, (_, index) => openSocket(target.host, portOf(index))),
  );
  let sampleBody: string | undefined;
  const isSuccessStatus = (status: number) =>
    target.expectStatus === undefined ? status >= 200 && status < 300 : status === target.expectStatus;
  const expectedText =
    target.expectBodyIncludes === undefined ? undefined : Buffer.from(target.expectBodyIncludes, 'utf8');
  const isSuccess = (status: number, body: Buffer) =>
    isSuccessStatus(status) && (expectedText === undefined || body.includes(expectedText));

  return {
    sampleBody: () => sampleBody ?? '',
    start(run: LoadRun) {
      let open = sockets.length;
      for (const [index, socket] of sockets.entries()) {
        let startedAt = 0;
        const bytes = requestBytes[index % requestBytes.length] ?? Buffer.alloc(0);
        const send = () => {
          startedAt = performance.now();
          socket.write(bytes);
        };
        const parser = new HttpResponseParser((status, body) => {
          sampleBody ??= body.toString('utf8');
          if (run.complete(startedAt, isSuccess(status, body))) send();
        });
        socket.on('data', (chunk: Buffer) => {
          try {
            parser.push(chunk);
          } catch {
            run.fail();
            socket.destroy();
          }
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          open -= 1;
          if (!run.isRunning) return;
          run.fail();
          if (open === 0) run.stop();
        });
        send();
      }
    },
    async close() {
      await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.destroyed) return resolve();
              socket.once('close', () => resolve());
              socket.end();
              setTimeout(() => {
                socket.destroy();
                resolve();
              }, 1000).unref();
            }),
        ),
      );
    },
  };
}
