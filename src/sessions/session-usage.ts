// Per-session running totals (tokens, cost, steps) and the last requesting client, read back as session metadata.
import type { TurnRequest, TurnResult, TurnRunner } from '../agents/types.js';
import type { SessionUsage } from '../store/index.js';
import type { SessionStore } from './types.js';

export type { SessionUsage } from '../store/index.js';

const EMPTY_USAGE: SessionUsage = { totalTokens: 0, totalCost: 0, stepsExecuted: 0, turns: 0 };

const TRACKED = Symbol('sessionUsageTracked');

function finiteOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function readSessionUsage(metadata: Record<string, unknown>): SessionUsage {
  const usage = metadata.usage;
  if (typeof usage !== 'object' || usage === null) return { ...EMPTY_USAGE };
  const fields = usage as Record<string, unknown>;
  return {
    totalTokens: finiteOr0(fields.totalTokens),
    totalCost: finiteOr0(fields.totalCost),
    stepsExecuted: finiteOr0(fields.stepsExecuted),
    turns: finiteOr0(fields.turns),
  };
}

/**
 * Adds one finished turn to its session's totals and records who last asked (`metadata.requestedBy`, shown by
 * session.list; ownership is the session's ownerId). A session the runner never created is skipped.
 */
export async function recordTurnUsage(
  store: SessionStore,
  request: Pick<TurnRequest, 'sessionKey' | 'caller'>,
  result: TurnResult,
  now: number,
): Promise<void> {
  await store.recordTurnUsage(
    request.sessionKey,
    {
      totalTokens: finiteOr0(result.tokensUsed.total),
      totalCost: finiteOr0(result.costUsd),
      stepsExecuted: finiteOr0(result.steps),
      requestedBy: request.caller.clientId,
    },
    now,
  );
}

/**
 * Wraps a TurnRunner so every turn it runs is added to its session's totals. app.ts wraps the runner once and
 * hands the wrapped one to every surface (agent.execute, /v1, the session service); wrapping twice is a no-op.
 */
export function trackSessionUsage(runner: TurnRunner, { store, now }: { store: SessionStore; now: () => number }): TurnRunner {
  if (isUsageTracked(runner)) return runner;
  const tracked: TurnRunner & { [TRACKED]: true } = {
    [TRACKED]: true,
    async run(request) {
      const result = await runner.run(request);
      await recordTurnUsage(store, request, result, now());
      return result;
    },
  };
  return tracked;
}

export function isUsageTracked(runner: TurnRunner): boolean {
  return TRACKED in runner;
}
