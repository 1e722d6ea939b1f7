// The layout's banner: every budget past its warning fraction or exhausted, linking to the Budgets page.
import { useEffect } from 'preact/hooks';
import { budgetAlerts, refreshBudgetAlerts } from '../lib/budget-alerts';
import { onReconnect } from '../lib/rpc';
import { BASE, onLinkClick } from '../lib/router';

const percent = (fraction: number) => `${Math.floor(fraction * 100)}%`;

export function BudgetBanner() {
  useEffect(() => {
    void refreshBudgetAlerts();
    return onReconnect(() => void refreshBudgetAlerts());
  }, []);
  const alerts = budgetAlerts.value;
  if (alerts.length === 0) return null;
  const isExhausted = alerts.some((budget) => budget.state === 'exhausted');
  return (
    <div class={`notice budget-banner ${isExhausted ? 'error' : 'warn'}`} role={isExhausted ? 'alert' : 'status'}>
      <ul>
        {alerts.map((budget) => {
          const share = Math.max(budget.fractions.cost ?? 0, budget.fractions.tokens ?? 0);
          return (
            <li key={budget.id}>
              Budget <strong>{budget.id}</strong> ({budget.scope}){' '}
              {budget.state === 'exhausted'
                ? budget.action === 'block'
                  ? 'is exhausted: its calls are refused until the window ends.'
                  : 'is past its limit (warn only).'
                : `has used ${percent(share)} of its limit.`}
            </li>
          );
        })}
      </ul>
      <a href={`${BASE}budgets`} onClick={onLinkClick}>
        Open Budgets
      </a>
    </div>
  );
}
