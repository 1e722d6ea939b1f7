// The public answer of a turn, shared by agent.execute and POST /api/chat: {response, tokensUsed, finishReason}.
import type { FinishReason, TurnResult } from './types.js';

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

/** Finish reasons that mean a run's task was not done; the others (stop, max_steps, …) complete it. */
const UNDONE_FINISH_REASONS: ReadonlySet<FinishReason> = new Set(['error', 'aborted', 'circuit_open', 'context_exhausted']);

/** Why a run's turn did not do its task (spawned runs, scheduled fires), or undefined when it did. */
export function undoneTaskError(result: Pick<TurnResult, 'finishReason' | 'error'>): string | undefined {
  return UNDONE_FINISH_REASONS.has(result.finishReason) ? (result.error ?? `The turn ended with ${result.finishReason}`) : undefined;
}
