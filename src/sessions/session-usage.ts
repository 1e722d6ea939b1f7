// Per-session running totals (tokens, cost, steps) and the last requesting client, kept in session metadata.
import type { TurnRequest, TurnResult, TurnRunner } from '../agents/types.js';
import type { SessionStore } from './types.js';

/** What session.status reports for a session; lives under `metadata.usage`. */
export interface SessionUsage {
  totalTokens: number;
  totalCost: number;
  stepsExecuted: number;
  turns: number;
}

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
export function recordTurnUsage(store: SessionStore, request: Pick<TurnRequest, 'sessionKey' | 'caller'>, result: TurnResult, now: number): void {
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
      recordTurnUsage(store, request, result, now());
      return result;
    },
  };
  return tracked;
}

export function isUsageTracked(runner: TurnRunner): boolean {
  return TRACKED in runner;
}
