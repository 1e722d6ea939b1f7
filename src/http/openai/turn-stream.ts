// /v1 streams over the shared turn-to-SSE pipeline: a turn that ended without an answer comes back as {ok: false}.
import type { GatewayError } from '../../errors.js';
import type { SseFrame, SseStream } from '../../server/index.js';
import type { TurnRequest } from '../../turns/index.js';
import { streamTurn as streamTurnToSse, type StreamedTurn } from '../turn-stream.js';
import { turnFailure } from './turn-input.js';
import type { OpenAiContext } from './types.js';

export type { StreamedTurn } from '../turn-stream.js';

export function streamTurn(
  ctx: OpenAiContext,
  stream: SseStream,
  turn: Omit<TurnRequest, 'signal' | 'onDelta'>,
  deltaFrame: (delta: string) => SseFrame,
  inputParam: string,
): Promise<StreamedTurn> {
  return streamTurnToSse(ctx, stream, turn, deltaFrame, (result) => turnFailure(result, inputParam));
}

/**
 * A stream whose turn a budget refused before anything was written: the stream is given up and the request answered
 * with the refusal's status (429 insufficient_quota, Retry-After), as a non-streamed request is.
 */
export function isRefusedBeforeOutput(error: GatewayError, stream: SseStream): boolean {
  if (error.kind !== 'budget_exceeded' || stream.hasStarted()) return false;
  stream.abandon();
  return true;
}
