// The in-process budget ledger: reservations and settlements are atomic because each runs to its end synchronously on
// the one event loop, so concurrent calls of this process never pass a limit together.
import { randomUUID } from 'node:crypto';
import type { BudgetConfig } from '../config/index.js';
import { applicableBudgets, fits } from './applicable.js';
import type { BudgetAmount, BudgetLedger, BudgetReservation, BudgetSubject, BudgetUsage } from './types.js';
import { bucketAt, bucketsAt, windowAt } from './windows.js';

export interface LocalLedgerDeps {
  /** The budgets in force (hot-applied config): read on every call. */
  budgets: () => readonly BudgetConfig[];
  now: () => number;
  newId?: () => string;
}

interface HeldReservation {
  reservation: BudgetReservation;
  expiresAt: number;
}

const ZERO: BudgetAmount = { costMicroUsd: 0, tokens: 0 };
const add = (a: BudgetAmount, b: BudgetAmount): BudgetAmount => ({
  costMicroUsd: a.costMicroUsd + b.costMicroUsd,
  tokens: a.tokens + b.tokens,
});

export function createLocalLedger({ budgets, now, newId = randomUUID }: LocalLedgerDeps): BudgetLedger {
  /** Settled use per `<budgetId>|<bucket>`. */
  const used = new Map<string, BudgetAmount>();
  const held = new Map<string, HeldReservation>();

  const dropExpired = (at: number) => {
    for (const [id, entry] of held) if (entry.expiresAt <= at) held.delete(id);
  };

  const usedIn = (budget: BudgetConfig, at: number): BudgetAmount =>
    bucketsAt(budget.window, at).reduce((sum, bucket) => add(sum, used.get(`${budget.id}|${bucket}`) ?? ZERO), ZERO);

  const reservedFor = (budget: BudgetConfig): BudgetAmount => {
    let sum = ZERO;
    for (const { reservation } of held.values())
      if (applicableBudgets([budget], reservation.subject).length > 0) sum = add(sum, reservation.amount);
    return sum;
  };

  const count = (subject: BudgetSubject, amount: BudgetAmount, at: number) => {
    for (const budget of applicableBudgets(budgets(), subject)) {
      const key = `${budget.id}|${bucketAt(budget.window, at)}`;
      used.set(key, add(used.get(key) ?? ZERO, amount));
    }
  };

  return {
    reserve(subject, worstCase, ttlMs) {
      const at = now();
      dropExpired(at);
      const applicable = applicableBudgets(budgets(), subject);
      const outcome = fits(applicable, (budget) => add(usedIn(budget, at), reservedFor(budget)), worstCase, at);
      if (!outcome.fits)
        return Promise.resolve({ ok: false, budgetId: outcome.budgetId, retryAfterMs: outcome.retryAfterMs });
      const reservation = { id: newId(), subject, amount: worstCase };
      held.set(reservation.id, { reservation, expiresAt: at + ttlMs });
      return Promise.resolve({ ok: true, reservation, warnings: outcome.warnings });
    },
    settle(reservation, actual) {
      held.delete(reservation.id);
      count(reservation.subject, actual, now());
      return Promise.resolve();
    },
    release(reservation) {
      held.delete(reservation.id);
      return Promise.resolve();
    },
    usage(scope) {
      const at = now();
      dropExpired(at);
      const rows: BudgetUsage[] = budgets()
        .filter((budget) => scope === undefined || budget.scope === scope)
        .map((budget) => {
          const window = windowAt(budget.window, at);
          return {
            budgetId: budget.id,
            scope: budget.scope,
            action: budget.action,
            windowStart: window.start,
            windowEnd: window.end,
            used: usedIn(budget, at),
            reserved: reservedFor(budget),
            limits: {
              ...(budget.maxCostUsd === undefined ? {} : { maxCostUsd: budget.maxCostUsd }),
              ...(budget.maxTokens === undefined ? {} : { maxTokens: budget.maxTokens }),
            },
          };
        });
      return Promise.resolve(rows);
    },
    close: () => Promise.resolve(),
  };
}
