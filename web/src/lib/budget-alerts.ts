// The budgets past their warning fraction or exhausted, for the layout's banner: read from budgets.list, refreshed on
// the budget:warning and budget:exhausted events, on a config change of the budgets (budgets.set or budgets.delete
// from anywhere) and after a change on the Budgets page.
import { signal } from '@preact/signals';
import { subscribeEvents } from './live-events';
import { call, type ResultOf } from './rpc';

export type BudgetEntry = ResultOf<'budgets.list'>['budgets'][number];

/** Budgets whose state is `warning` or `exhausted`; empty when there are none or the token may not read budgets. */
export const budgetAlerts = signal<BudgetEntry[]>([]);

const ALERT_EVENTS = new Set(['budget:warning', 'budget:exhausted']);

/** A config:patched event whose sections include `budgets`. */
const changesBudgets = (data: Record<string, unknown>): boolean =>
  Array.isArray(data.sections) && data.sections.includes('budgets');
let unsubscribe: (() => void) | undefined;

/** Reads budgets.list again. The event feed is opened only once some budget exists, so a gateway without any adds none. */
export async function refreshBudgetAlerts(): Promise<void> {
  let budgets: BudgetEntry[];
  try {
    ({ budgets } = await call('budgets.list'));
  } catch {
    // A token without admin (or a gateway without budgets.*) has no banner.
    budgetAlerts.value = [];
    return;
  }
  budgetAlerts.value = budgets.filter((budget) => budget.state !== 'ok');
  if (budgets.length > 0 && unsubscribe === undefined)
    unsubscribe = subscribeEvents((event) => {
      if (ALERT_EVENTS.has(event.name) || (event.name === 'config:patched' && changesBudgets(event.data)))
        void refreshBudgetAlerts();
    });
}

/** Drops the subscription and the alerts (sign out). */
export function stopBudgetAlerts(): void {
  unsubscribe?.();
  unsubscribe = undefined;
  budgetAlerts.value = [];
}
