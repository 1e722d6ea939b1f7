// The public answer of a turn, shared by agent.execute and POST /api/chat: {response, tokensUsed, finishReason}; and what a
// background run (webhook, cron fire, chat message) records of its turn.
import type { FinishReason, TurnResult } from './types.js';

export interface TurnReply {
  response: string;
  tokensUsed: TurnResult['tokensUsed'];
  finishReason: TurnResult['finishReason'];
  sessionKey: string;
  /** Why the turn failed, when it did: for a model failure the model, the provider's HTTP status and its own message. */
  error?: string;
  /** The failure's kind (upstream_failed, unavailable, internal …) when the turn failed on a thrown error. */
  errorKind?: TurnResult['errorKind'];
  /** The HTTP status the model's provider answered, when an upstream_failed turn got one. */
  upstreamStatus?: number;
  /** When a retry may succeed, in ms (an open breaker, storage or Redis unreachable). */
  retryAfterMs?: number;
}

export function turnReply(result: TurnResult): TurnReply {
  return {
    response: result.response,
    tokensUsed: result.tokensUsed,
    finishReason: result.finishReason,
    sessionKey: result.sessionKey,
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.errorKind === undefined ? {} : { errorKind: result.errorKind }),
    ...(result.upstreamStatus === undefined ? {} : { upstreamStatus: result.upstreamStatus }),
    ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
  };
}

/**
 * Whether a finish reason means a run's task was not done: no answer came (error, aborted, circuit_open,
 * context_exhausted). The others complete it, a cut or limited answer (length, max_steps, …) included.
 */
const IS_UNDONE: Record<FinishReason, boolean> = {
  stop: false,
  length: false,
  max_steps: false,
  budget_exceeded: false,
  circuit_open: true,
  context_loop: false,
  context_exhausted: true,
  aborted: true,
  error: true,
  tool_calls: false,
};

/** Why a run's turn did not do its task (spawned runs, scheduled fires), or undefined when it did. */
export function undoneTaskError(result: Pick<TurnResult, 'finishReason' | 'error' | 'errorKind'>): string | undefined {
  // A model call a budget refused before dispatch (src/budgets) left the task undone, unlike budget.maxTokensPerTurn.
  const isUndone = IS_UNDONE[result.finishReason] || result.errorKind === 'budget_exceeded';
  return isUndone ? (result.error ?? `The turn ended with ${result.finishReason}`) : undefined;
}

/** What a background run records of its turn: completed or failed (with `failure`), and the turn's reply and usage. */
export function turnRunOutcome(
  result: Pick<TurnResult, 'response' | 'tokensUsed' | 'costUsd'> | undefined,
  failure: string | undefined,
) {
  return {
    status: failure === undefined ? ('completed' as const) : ('failed' as const),
    ...(result === undefined
      ? {}
      : { response: result.response, tokensUsed: result.tokensUsed, costUsd: result.costUsd }),
    ...(failure === undefined ? {} : { error: failure }),
  };
}
