// Runs one streamed call for any protocol: POST, error answers, SSE or a whole JSON body, events out, upstream closed on exit.
import { errorFromResponse, protocolError, toProviderCallError } from './errors.js';
import { readText, type UpstreamSignal, type WireHttp, type WireResponse } from './http.js';
import { createSseDecoder, type SseFrameHandler } from './sse.js';
import type { WireEvent } from './types.js';

/** Error bodies are read for the log detail only; more than this is cut off. */
export const ERROR_BODY_MAX_BYTES = 64 * 1024;
/** A server that ignores `stream: true` answers one JSON body; bounded like a long reply. */
export const JSON_BODY_MAX_BYTES = 32 * 1024 * 1024;

/**
 * A protocol's reading of one call's answer. A fresh decoder per call holds that call's state (pending tool
 * calls, usage, finish reason); each method appends the events it completes to `out`.
 */
export interface StreamDecoder {
  /** One SSE frame; throws a ProviderCallError for an error frame. */
  frame(event: string | undefined, data: string, out: WireEvent[]): void;
  /** The body ended: appends the remaining events and the finish, or throws when the answer is incomplete. */
  end(out: WireEvent[]): void;
  /** The whole answer as one JSON body (a server that ignored `stream: true`). */
  json(body: unknown, out: WireEvent[]): void;
}

/** Bridges the SSE decoder's frames into the protocol decoder and its output buffer. */
class FrameSink implements SseFrameHandler {
  constructor(
    private readonly decoder: StreamDecoder,
    private readonly out: WireEvent[],
  ) {}

  frame(event: string | undefined, data: string): void {
    this.decoder.frame(event, data, this.out);
  }
}

function isJsonBody(response: WireResponse): boolean {
  const type = response.headers['content-type'];
  return typeof type === 'string' && type.startsWith('application/json');
}

/** Parses a whole JSON body once; an unparsable one is the upstream's protocol error. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw protocolError('response body is not JSON', error);
  }
}

/** Posts `body` and throws the classified error for a non-2xx answer; the caller reads the body. */
export async function postJson(
  http: WireHttp,
  path: string,
  body: string,
  signal: UpstreamSignal,
): Promise<WireResponse> {
  const response = await http.post(path, body, signal);
  if (response.statusCode >= 300) {
    throw errorFromResponse(response.statusCode, response.headers, await readText(response.body, ERROR_BODY_MAX_BYTES));
  }
  return response;
}

/** One non-streamed call (embeddings): the parsed JSON answer, every failure as a ProviderCallError. */
export async function callJson(http: WireHttp, path: string, body: string, signal: AbortSignal): Promise<unknown> {
  const deadline = http.deadline(signal);
  try {
    const response = await postJson(http, path, body, deadline);
    return parseJsonBody(await readText(response.body, JSON_BODY_MAX_BYTES));
  } catch (error) {
    throw toProviderCallError(error, signal, deadline.isTimedOut());
  } finally {
    deadline.end();
  }
}

/**
 * Streams one call. Events are yielded as soon as the chunk that completes them is decoded; stopping the
 * iteration early (or the caller's abort, or the deadline) destroys the response body, which closes the
 * upstream connection instead of returning it to the pool.
 */
export async function* streamCall(
  http: WireHttp,
  path: string,
  body: string,
  signal: AbortSignal,
  decoder: StreamDecoder,
): AsyncGenerator<WireEvent> {
  const deadline = http.deadline(signal);
  let response: WireResponse | undefined;
  try {
    response = await postJson(http, path, body, deadline);
    const out: WireEvent[] = [];
    if (isJsonBody(response)) {
      const answer = parseJsonBody(await readText(response.body, JSON_BODY_MAX_BYTES));
      let isFailed = false;
      let failure: unknown;
      try {
        decoder.json(answer, out);
      } catch (error) {
        isFailed = true;
        failure = error;
      }
      // As below: what was decoded before an error inside the answer (a Gemini chunk array) still goes out first.
      for (const event of out) yield event;
      if (isFailed) throw failure;
      return;
    }
    const sse = createSseDecoder(new FrameSink(decoder, out));
    const chunks: AsyncIterable<Buffer> = response.body;
    for await (const chunk of chunks) {
      let isFailed = false;
      let failure: unknown;
      try {
        sse.feed(chunk);
      } catch (error) {
        isFailed = true;
        failure = error;
      }
      // Events completed before an error frame in the same chunk still reach the consumer, then the error.
      if (out.length > 0) {
        for (const event of out) yield event;
        out.length = 0;
      }
      if (isFailed) throw failure;
    }
    decoder.end(out);
    for (const event of out) yield event;
  } catch (error) {
    throw toProviderCallError(error, signal, deadline.isTimedOut());
  } finally {
    deadline.end();
    if (response !== undefined && !response.body.readableEnded) response.body.destroy();
  }
}
