// Budgets: spend and token limits reserved before each model call and settled after it (issue 40).
export { createLocalLedger, type LocalLedgerDeps } from './local-ledger.js';
export { applicableBudgets, toMicroUsd } from './applicable.js';
export { bucketAt, bucketsAt, windowAt } from './windows.js';
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
} from './types.js';
