// Budgets: spend and token limits reserved before each model call and settled after it (issue 40).
export { createBudgetsModule } from './module.js';
/** For src/method-map.ts (the dashboard's typed calls). */
export type { budgetMethods } from './methods.js';
export { createBudgetLedger } from './create-ledger.js';
export { createLocalLedger } from './local-ledger.js';
export { createBudgetNotices } from './budget-notices.js';
export { gateModelRouter } from './gated-router.js';
export { gateLiveEmbedder } from './gated-embedder.js';
export type { BudgetLedger } from './types.js';
