// Which budgets a model call counts against, and whether a worst case fits them: the rule both ledgers apply (the
// in-process one directly, the Redis one in its Lua script).
import type { BudgetConfig } from '../config/index.js';
import type { BudgetAmount, BudgetSubject } from './types.js';
import { windowAt } from './windows.js';

/** Dollars to the ledgers' integer micro-USD, rounded up: a worst case or a settlement is never undercounted. */
export const toMicroUsd = (usd: number): number => Math.ceil(Math.round(usd * 1e9) / 1e3);

/** The budgets of the call's agent, token and tenant, and the global ones, in config order. */
export function applicableBudgets(budgets: readonly BudgetConfig[], subject: BudgetSubject): BudgetConfig[] {
  const scopes = new Set([
    `agent:${subject.agentId}`,
    `token:${subject.tokenId}`,
    `tenant:${subject.tenantId}`,
    'global',
  ]);
  return budgets.filter((budget) => scopes.has(budget.scope));
}

/** What a budget's window holds now: settled use plus live reservations. */
export type WindowTotals = (budget: BudgetConfig) => BudgetAmount;

export type FitOutcome =
  { fits: true; warnings: string[]; exhausted: string[] } | { fits: false; budgetId: string; retryAfterMs: number };

/**
 * Whether `ask` fits every blocking budget (a warn budget never refuses); the budgets whose warning fraction the ask
 * reaches are named for budget:warning, those it brings to a limit (a warn budget: or past it) for budget:exhausted.
 */
export function fits(
  budgets: readonly BudgetConfig[],
  totals: WindowTotals,
  ask: BudgetAmount,
  now: number,
): FitOutcome {
  const warnings: string[] = [];
  const exhausted: string[] = [];
  for (const budget of budgets) {
    const held = totals(budget);
    const after = { costMicroUsd: held.costMicroUsd + ask.costMicroUsd, tokens: held.tokens + ask.tokens };
    const over =
      (budget.maxCostUsd !== undefined && after.costMicroUsd > toMicroUsd(budget.maxCostUsd)) ||
      (budget.maxTokens !== undefined && after.tokens > budget.maxTokens);
    if (over && budget.action === 'block')
      return { fits: false, budgetId: budget.id, retryAfterMs: Math.max(0, windowAt(budget.window, now).end - now) };
    const share = Math.max(
      budget.maxCostUsd === undefined ? 0 : after.costMicroUsd / toMicroUsd(budget.maxCostUsd),
      budget.maxTokens === undefined ? 0 : after.tokens / budget.maxTokens,
    );
    if (share >= budget.warnAtFraction) warnings.push(budget.id);
    if (share >= 1) exhausted.push(budget.id);
  }
  return { fits: true, warnings, exhausted };
}
