// Budgets: spend and token limits reserved before each model call and settled after it (issue 40).
export { createLocalLedger, type LocalLedgerDeps } from './local-ledger.js';
export { applicableBudgets, toMicroUsd } from './applicable.js';
export { bucketAt, bucketsAt, windowAt } from './windows.js';
export type {
  BudgetAmount,
  BudgetLedger,
  BudgetReservation,
  BudgetSubject,
  BudgetUsage,
  ReserveOutcome,
} from './types.js';
