// Budgets: spend and token limits reserved before each model call and settled after it (issue 40).
export { createBudgetsModule } from './module.js';
/** For src/method-map.ts (the dashboard's typed calls). */
export type { budgetMethods } from './methods.js';
export { createBudgetLedger } from './create-ledger.js';
export { createLocalLedger, type LocalLedgerDeps } from './local-ledger.js';
export { applicableBudgets, fits, toMicroUsd } from './applicable.js';
export { bucketAt, bucketCountedUntil, bucketsAt, windowAt } from './windows.js';
export { createBudgetNotices, type BudgetNotice, type BudgetNotices } from './budget-notices.js';
export { gateModelRouter, SYSTEM_PAYER, type BudgetGateDeps } from './gated-router.js';
export { gateLiveEmbedder, type EmbedderGateDeps } from './gated-embedder.js';
export type {
  BudgetAmount,
  BudgetLedger,
  BudgetReservation,
  BudgetSubject,
  BudgetUsage,
  ReserveOutcome,
  SharedLedgerDeps,
} from './types.js';
