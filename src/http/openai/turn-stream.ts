// Runs one turn behind an open SSE stream: each text delta becomes a frame, and the outcome never throws.
import type { TurnRequest, TurnResult } from '../../agents/types.js';
import { maskUnknown, type GatewayError } from '../../errors.js';
import { createAsyncQueue, pipeToSse, type SseFrame, type SseStream } from '../../server/sse.js';
import { turnFailure } from './turn-input.js';
import type { OpenAiContext } from './types.js';

export type StreamedTurn = { ok: true; result: TurnResult } | { ok: false; error: GatewayError };

/**
 * The turn is aborted when the client goes away (stream.signal) or the gateway shuts down. Deltas are queued
 * so a slow client only delays the frames, never the model; a turn that ended without an answer
 * (`turnFailure`) or threw comes back as `{ok: false}`, internal errors logged with their cause.
 */
export async function streamTurn(
  ctx: OpenAiContext,
  stream: SseStream,
  turn: Omit<TurnRequest, 'signal' | 'onDelta'>,
  deltaFrame: (delta: string) => SseFrame,
  inputParam: string,
): Promise<StreamedTurn> {
  const deltas = createAsyncQueue<string>();
  const settled: Promise<StreamedTurn> = ctx.runner
    .run({ ...turn, signal: AbortSignal.any([stream.signal, ctx.shutdownSignal]), onDelta: (text) => deltas.push(text) })
    .then(
      (result): StreamedTurn => {
        const failure = turnFailure(result, inputParam);
        return failure === undefined ? { ok: true, result } : { ok: false, error: failure };
      },
      (error: unknown): StreamedTurn => ({ ok: false, error: maskUnknown(error, ctx.log, {}, 'streamed turn failed') }),
    )
    .finally(() => deltas.end());
  await pipeToSse(stream, deltas, deltaFrame, { keepAliveMs: ctx.keepAliveMs });
  const outcome = await settled;
  return outcome;
}
