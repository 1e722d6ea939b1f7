// /v1 streams over the shared turn-to-SSE pipeline: a turn that ended without an answer comes back as {ok: false}.
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
