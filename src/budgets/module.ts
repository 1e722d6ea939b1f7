// The budgets capability module: budgets.list, set, delete and usage (admin) and budgets.mine (rpc).
import type { MethodModule } from '../rpc/types.js';
import { budgetMethods, type BudgetMethodsDeps } from './methods.js';

export function createBudgetsModule(deps: BudgetMethodsDeps): MethodModule {
  return { name: 'budgets', methods: budgetMethods(deps) };
}
