// Per-session running totals (tokens, cost, steps) and the last requesting client: one atomic store update per turn.
import type { SessionPort as SessionStore, SessionUsage } from '../store/index.js';
import type { TurnRequest, TurnResult } from './types.js';

export type { SessionUsage } from '../store/index.js';

const EMPTY_USAGE: SessionUsage = { totalTokens: 0, totalCost: 0, stepsExecuted: 0, turns: 0 };

function finiteOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** What session.status reports, read from `metadata.usage`; zeros before the first recorded turn. */
export function readSessionUsage(metadata: Record<string, unknown>): SessionUsage {
  const usage = metadata.usage;
  if (typeof usage !== 'object' || usage === null) return { ...EMPTY_USAGE };
  return {
    totalTokens: finiteOr0('totalTokens' in usage ? usage.totalTokens : undefined),
    totalCost: finiteOr0('totalCost' in usage ? usage.totalCost : undefined),
    stepsExecuted: finiteOr0('stepsExecuted' in usage ? usage.stepsExecuted : undefined),
    turns: finiteOr0('turns' in usage ? usage.turns : undefined),
  };
}

/**
 * Adds one finished turn to its session's totals and records who last asked (`metadata.requestedBy`, shown by
 * session.list; ownership is the session's ownerId). Called once per turn by TurnService.
 */
export async function recordTurnUsage(
  store: Pick<SessionStore, 'recordTurnUsage'>,
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
