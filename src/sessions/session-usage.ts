// A session's running totals (tokens, cost, steps, turns) as session.status reports them, read from its metadata.
import type { SessionUsage } from '../store/index.js';

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
