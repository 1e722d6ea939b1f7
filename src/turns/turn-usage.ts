// Adds a finished turn to its session's running totals (tokens, cost, steps) and last requesting client: one atomic store update per turn.
import type { SessionOutcome, SessionPort } from '../store/index.js';
import type { FinishReason, TurnRequest, TurnResult } from './types.js';

/** How session.list names a turn's end: the finish reasons folded into its five outcomes. */
const OUTCOME_OF: Record<FinishReason, SessionOutcome> = {
  stop: 'completed',
  tool_calls: 'completed',
  length: 'truncated',
  max_steps: 'truncated',
  context_loop: 'truncated',
  context_exhausted: 'truncated',
  budget_exceeded: 'budget_exceeded',
  aborted: 'cancelled',
  circuit_open: 'error',
  error: 'error',
};

function finiteOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Adds one finished turn to its session's totals and records who last asked (`metadata.requestedBy`, shown by
 * session.list; ownership is the session's ownerId). Called once per turn by TurnService.
 */
export async function recordTurnUsage(
  store: Pick<SessionPort, 'recordTurnUsage'>,
  request: Pick<TurnRequest, 'sessionKey' | 'caller'>,
  result: TurnResult,
  now: number,
): Promise<void> {
  const usage = {
    totalTokens: finiteOr0(result.tokensUsed.total),
    totalCost: finiteOr0(result.costUsd),
    stepsExecuted: finiteOr0(result.steps),
    requestedBy: request.caller.clientId,
    outcome: result.errorKind === 'budget_exceeded' ? 'budget_exceeded' : OUTCOME_OF[result.finishReason],
  };
  await store.recordTurnUsage(request.sessionKey, usage, now);
}
