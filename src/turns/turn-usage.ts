// Adds a finished turn to its session's running totals (tokens, cost, steps) and last requesting client: one atomic store update per turn.
import type { SessionPort } from '../store/index.js';
import type { TurnRequest, TurnResult } from './types.js';

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
  };
  await store.recordTurnUsage(request.sessionKey, usage, now);
}
