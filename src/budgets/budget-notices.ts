// budget:warning and budget:exhausted on the bus: each at most once per budget per window in this process, with the
// budget's window and what it holds against its limits.
import type { Logger } from 'pino';
import type { BudgetConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { BudgetLedger } from './types.js';
import { windowAt } from './windows.js';

export type BudgetNotice = 'budget:warning' | 'budget:exhausted';

export interface BudgetNotices {
  /** Emits `name` for `budgetId` unless this process already did in the budget's current window. Never throws. */
  notice(name: BudgetNotice, budgetId: string): void;
}

export interface BudgetNoticesDeps {
  ledger: Pick<BudgetLedger, 'usage'>;
  budgets: () => readonly BudgetConfig[];
  events: EventBus;
  now: () => number;
  log: Logger;
}

const usd = (microUsd: number): number => microUsd / 1e6;

export function createBudgetNotices({ ledger, budgets, events, now, log }: BudgetNoticesDeps): BudgetNotices {
  /** `<name>|<budgetId>` → when the window it was emitted in ends: one entry per budget and notice. */
  const quietUntil = new Map<string, number>();

  async function emit(name: BudgetNotice, budget: BudgetConfig, window: { start: number; end: number }) {
    const row = (await ledger.usage(budget.scope)).find((usage) => usage.budgetId === budget.id);
    events.emit(name, {
      budgetId: budget.id,
      scope: budget.scope,
      action: budget.action,
      windowStart: window.start,
      windowEnd: window.end,
      used: { costUsd: usd(row?.used.costMicroUsd ?? 0), tokens: row?.used.tokens ?? 0 },
      reserved: { costUsd: usd(row?.reserved.costMicroUsd ?? 0), tokens: row?.reserved.tokens ?? 0 },
      limit: {
        ...(budget.maxCostUsd === undefined ? {} : { costUsd: budget.maxCostUsd }),
        ...(budget.maxTokens === undefined ? {} : { tokens: budget.maxTokens }),
      },
    });
  }

  return {
    notice(name, budgetId) {
      const budget = budgets().find((candidate) => candidate.id === budgetId);
      if (budget === undefined) return;
      const at = now();
      const key = `${name}|${budgetId}`;
      if ((quietUntil.get(key) ?? -Infinity) > at) return;
      const window = windowAt(budget.window, at);
      quietUntil.set(key, window.end);
      emit(name, budget, window).catch((error: unknown) =>
        log.warn({ err: error, budgetId, event: name }, 'budget event not emitted: usage could not be read'),
      );
    },
  };
}
