// Health signals from real operation: provider breaker trips, auth cooldowns and budgets at their warning fraction or
// limit off the bus, runs a restart found unfinished, and the boot posture row; the fleet report's recurring-signal and
// config-posture findings read them.
import type { EventBus } from '../events/index.js';
import { SIGNAL_KIND } from './evidence/kinds.js';
import type { HealthSignalRecorder } from './health-signals.js';

/**
 * `health` signal codes. Recurrence is counted per code (fleet_recurring_health_signal), so a provider condition
 * carries the provider's name: three trips of one provider recur, one trip each of three providers does not.
 */
export const HEALTH_CODES = {
  breakerOpened: (provider: string) => `provider_breaker_opened:${provider}`,
  authCooldown: (provider: string) => `provider_auth_cooldown:${provider}`,
  runsOrphaned: 'runs_orphaned_on_restart',
  budgetWarning: (budgetId: string) => `budget_warning:${budgetId}`,
  budgetExhausted: (budgetId: string) => `budget_exhausted:${budgetId}`,
} as const;

/**
 * Records a warning `health` signal for each breaker that opens (`provider:degraded`, once per closed → open, not
 * for every failed probe) and each auth cooldown. Recording only queues the row for the batch writer, so the
 * model call that caused the event pays nothing. Returns the unsubscribe function.
 */
export function subscribeProviderHealth({
  events,
  signals,
}: {
  events: EventBus;
  signals: HealthSignalRecorder;
}): () => void {
  return events.subscribe(function recordProviderHealth(event) {
    if (event.name === 'provider:degraded') {
      const { provider, failures } = event.payload;
      signals.record({
        kind: SIGNAL_KIND.health,
        severity: 'warning',
        ts: event.ts,
        data: { code: HEALTH_CODES.breakerOpened(provider), provider, failures },
      });
    } else if (event.name === 'budget:warning' || event.name === 'budget:exhausted') {
      // Once per budget per window per process (src/budgets/budget-notices.ts): a warning, and the limit reached.
      const { budgetId, scope, windowEnd } = event.payload;
      const isExhausted = event.name === 'budget:exhausted';
      signals.record({
        kind: SIGNAL_KIND.health,
        severity: isExhausted ? 'warning' : 'info',
        ts: event.ts,
        data: {
          code: isExhausted ? HEALTH_CODES.budgetExhausted(budgetId) : HEALTH_CODES.budgetWarning(budgetId),
          budgetId,
          scope,
          windowEnd,
        },
      });
    } else if (event.name === 'model:auth_cooldown') {
      const { provider } = event.payload;
      signals.record({
        kind: SIGNAL_KIND.health,
        severity: 'warning',
        ts: event.ts,
        data: { code: HEALTH_CODES.authCooldown(provider), provider },
      });
    }
  });
}

/** At startup: the runs a previous process left running, now marked orphaned (one signal per restart that found any). */
export function recordRunsOrphaned(signals: HealthSignalRecorder, count: number): void {
  if (count > 0)
    signals.record({ kind: SIGNAL_KIND.health, severity: 'warning', data: { code: HEALTH_CODES.runsOrphaned, count } });
}

/** One model's context window as configured and as its server reports serving it (`unknown` when it does not say). */
export interface PostureEntry {
  provider: string;
  model: string;
  configuredWindowTokens: number;
  servedWindowTokens: number | 'unknown';
}

const isBelow = (entry: PostureEntry): boolean =>
  typeof entry.servedWindowTokens === 'number' && entry.servedWindowTokens < entry.configuredWindowTokens;

/**
 * The boot posture row (config_posture). Every boot records one, even with no providers, because the fleet report
 * reads the latest row only: an old boot's finding must not outlive a fixed config. Models served below their
 * configured window come first, since stored arrays keep their first 20 items (scrub.ts).
 */
export function recordBootPosture(
  signals: HealthSignalRecorder,
  { bootId, entries }: { bootId: string; entries: readonly PostureEntry[] },
): void {
  const ordered = [...entries.filter(isBelow), ...entries.filter((entry) => !isBelow(entry))];
  signals.record({
    kind: SIGNAL_KIND.configPosture,
    severity: ordered.some(isBelow) ? 'warning' : 'info',
    data: { bootId, providers: ordered.map((entry) => ({ ...entry })) },
  });
}
