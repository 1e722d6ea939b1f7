// The one turn-to-SSE pipeline (/api/chat/stream and /v1 streams): each text delta (and, when asked, each tool call's progress) becomes a frame; the outcome never throws.
import type { Logger } from 'pino';
import { maskUnknown, type GatewayError } from '../errors.js';
import { createAsyncQueue, pipeToSse, type SseFrame, type SseStream } from '../server/index.js';
import type { ToolProgress, TurnRequest, TurnResult, TurnRunner } from '../turns/index.js';

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
 * answer). With `toolFrame`, each tool call's progress is a frame too, in order with the deltas (it counts nothing
 * toward the queued characters). Unknown errors are logged and masked.
 */
export async function streamTurn(
  deps: TurnStreamDeps,
  stream: SseStream,
  turn: Omit<TurnRequest, 'signal' | 'onDelta' | 'onTool'>,
  deltaFrame: (delta: string) => SseFrame,
  judge: (result: TurnResult) => GatewayError | undefined = () => undefined,
  toolFrame?: (progress: ToolProgress) => SseFrame,
): Promise<StreamedTurn> {
  // A tool frame waits in the queue as the function making it, so frames are made (and numbered) in write order.
  const deltas = createAsyncQueue<string | (() => SseFrame)>({
    highWaterMark: STREAM_QUEUED_CHARS_MAX,
    sizeOf: (item) => (typeof item === 'string' ? item.length : 0),
  });
  const settled: Promise<StreamedTurn> = deps.runner
    .run({
      ...turn,
      signal: AbortSignal.any([stream.signal, deps.shutdownSignal]),
      onDelta: (text) => {
        deltas.push(text);
        return deltas.room();
      },
      ...(toolFrame === undefined
        ? {}
        : { onTool: (progress: ToolProgress) => deltas.push(() => toolFrame(progress)) }),
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
  const toFrame = (item: string | (() => SseFrame)): SseFrame => (typeof item === 'string' ? deltaFrame(item) : item());
  await pipeToSse(stream, deltas, toFrame, { keepAliveMs: deps.keepAliveMs });
  const outcome = await settled;
  return outcome;
}
