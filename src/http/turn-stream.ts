// The one turn-to-SSE pipeline (/api/chat/stream and /v1 streams): each text delta becomes a frame; the outcome never throws.
import type { Logger } from 'pino';
import { maskUnknown, type GatewayError } from '../errors.js';
import { createAsyncQueue, pipeToSse, type SseFrame, type SseStream } from '../server/index.js';
import type { TurnRequest, TurnResult, TurnRunner } from '../turns/index.js';

/**
 * Characters of text deltas queued for a client before the turn waits for it to read: the model call then stops
 * reading the upstream, so a client that stops reading holds the upstream back instead of growing our memory.
 */
const STREAM_QUEUED_CHARS_MAX = 64 * 1024;

export type StreamedTurn = { ok: true; result: TurnResult } | { ok: false; error: GatewayError };

export interface TurnStreamDeps {
  runner: TurnRunner;
  /** Aborted at shutdown: the turn stops and the stream ends. */
  shutdownSignal: AbortSignal;
  /** SSE comment ping interval (ms). */
  keepAliveMs: number;
  log: Logger;
}

/**
 * The turn is aborted when the client goes away (stream.signal) or the gateway shuts down. Deltas are queued up
 * to STREAM_QUEUED_CHARS_MAX, so a briefly slow client does not stall the model; past it the turn waits for the
 * client (backpressure). `judge` may turn a finished turn into a failure (the /v1 rule for turns without an
 * answer). Unknown errors are logged and masked.
 */
export async function streamTurn(
  deps: TurnStreamDeps,
  stream: SseStream,
  turn: Omit<TurnRequest, 'signal' | 'onDelta'>,
  deltaFrame: (delta: string) => SseFrame,
  judge: (result: TurnResult) => GatewayError | undefined = () => undefined,
): Promise<StreamedTurn> {
  const deltas = createAsyncQueue<string>({
    highWaterMark: STREAM_QUEUED_CHARS_MAX,
    sizeOf: (text) => text.length,
  });
  const settled: Promise<StreamedTurn> = deps.runner
    .run({
      ...turn,
      signal: AbortSignal.any([stream.signal, deps.shutdownSignal]),
      onDelta: (text) => {
        deltas.push(text);
        return deltas.room();
      },
    })
    .then(
      (result): StreamedTurn => {
        const failure = judge(result);
        return failure === undefined ? { ok: true, result } : { ok: false, error: failure };
      },
      (error: unknown): StreamedTurn => ({
        ok: false,
        error: maskUnknown(error, deps.log, {}, 'streamed turn failed'),
      }),
    )
    .finally(() => deltas.end());
  await pipeToSse(stream, deltas, deltaFrame, { keepAliveMs: deps.keepAliveMs });
  const outcome = await settled;
  return outcome;
}
