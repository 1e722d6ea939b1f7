// The public answer of a turn, shared by agent.execute and POST /api/chat: {response, tokensUsed, finishReason}.
import type { TurnResult } from './types.js';

export interface TurnReply {
  response: string;
  tokensUsed: TurnResult['tokensUsed'];
  finishReason: TurnResult['finishReason'];
  sessionKey: string;
  /** Why the turn failed, when it did. */
  error?: string;
}

export function turnReply(result: TurnResult): TurnReply {
  return {
    response: result.response,
    tokensUsed: result.tokensUsed,
    finishReason: result.finishReason,
    sessionKey: result.sessionKey,
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}
