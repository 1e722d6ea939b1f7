// The in-process budget ledger: reservations and settlements are atomic because each runs to its end synchronously on
// the one event loop, so concurrent calls of this process never pass a limit together.
import { randomUUID } from 'node:crypto';
import type { BudgetConfig } from '../config/index.js';
import type { BudgetUsageRow } from '../store/index.js';
import { applicableBudgets, fits } from './applicable.js';
import type { BudgetAmount, BudgetLedger, BudgetReservation, BudgetSubject, BudgetUsage } from './types.js';
import { bucketAt, bucketsAt, USAGE_KEPT_MS, windowAt } from './windows.js';

export interface LocalLedgerDeps {
  /** The budgets in force (hot-applied config): read on every call. */
  budgets: () => readonly BudgetConfig[];
  now: () => number;
  newId?: () => string;
  /** Use settled before this process started (the durable ledger's store rows). */
  seed?: readonly BudgetUsageRow[];
  /** Told each settlement's increments, per budget and bucket (the durable ledger writes them behind). */
  counted?: (rows: BudgetUsageRow[]) => void;
}

/** How often settled buckets too old to count are dropped from memory. */
const FORGET_EVERY_MS = 3_600_000;

interface HeldReservation {
  reservation: BudgetReservation;
  expiresAt: number;
}

const ZERO: BudgetAmount = { costMicroUsd: 0, tokens: 0 };
const add = (a: BudgetAmount, b: BudgetAmount): BudgetAmount => ({
  costMicroUsd: a.costMicroUsd + b.costMicroUsd,
  tokens: a.tokens + b.tokens,
});

export function createLocalLedger({
  budgets,
  now,
  newId = randomUUID,
  seed = [],
  counted,
}: LocalLedgerDeps): BudgetLedger {
  /** Settled use per `<budgetId>|<bucket>`, and each key's bucket (to forget the old ones). */
  const used = new Map<string, BudgetAmount & { bucket: number }>();
  const held = new Map<string, HeldReservation>();
  let forgotAt = now();

  const addUsed = (budgetId: string, bucket: number, amount: BudgetAmount) => {
    const key = `${budgetId}|${bucket}`;
    used.set(key, { ...add(used.get(key) ?? ZERO, amount), bucket });
  };
  for (const row of seed) addUsed(row.budgetId, row.bucketStart, row);

  /** Buckets no window can count any more go, so a rolling budget's minute buckets do not pile up. */
  const forgetOld = (at: number) => {
    if (at - forgotAt < FORGET_EVERY_MS) return;
    forgotAt = at;
    for (const [key, entry] of used) if (entry.bucket < at - USAGE_KEPT_MS) used.delete(key);
  };

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
    forgetOld(at);
    const rows = applicableBudgets(budgets(), subject).map((budget) => ({
      budgetId: budget.id,
      bucketStart: bucketAt(budget.window, at),
      costMicroUsd: amount.costMicroUsd,
      tokens: amount.tokens,
    }));
    for (const row of rows) addUsed(row.budgetId, row.bucketStart, row);
    if (rows.length > 0) counted?.(rows);
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
      return Promise.resolve({ ok: true, reservation, warnings: outcome.warnings, exhausted: outcome.exhausted });
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
