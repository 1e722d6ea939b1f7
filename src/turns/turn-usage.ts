// Per-session running totals (tokens, cost, steps) and the last requesting client, kept in session metadata.
import type { SessionStore } from '../sessions/types.js';
import type { TurnRequest, TurnResult } from './types.js';

/** What session.status reports for a session; lives under `metadata.usage`. */
export interface SessionUsage {
  totalTokens: number;
  totalCost: number;
  stepsExecuted: number;
  turns: number;
}

const EMPTY_USAGE: SessionUsage = { totalTokens: 0, totalCost: 0, stepsExecuted: 0, turns: 0 };

function finiteOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

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
 * session.list; ownership is the session's ownerId). Called once per turn by TurnService, under the session lock.
 */
export function recordTurnUsage(store: Pick<SessionStore, 'get' | 'updateMetadata'>, request: Pick<TurnRequest, 'sessionKey' | 'caller'>, result: TurnResult, now: number): void {
  const session = store.get(request.sessionKey);
  if (session === undefined) return;
  const usage = readSessionUsage(session.metadata);
  const next: SessionUsage = {
    totalTokens: usage.totalTokens + finiteOr0(result.tokensUsed.total),
    totalCost: usage.totalCost + finiteOr0(result.costUsd),
    stepsExecuted: usage.stepsExecuted + finiteOr0(result.steps),
    turns: usage.turns + 1,
  };
  store.updateMetadata(request.sessionKey, { ...session.metadata, usage: next, requestedBy: request.caller.clientId }, now);
}
