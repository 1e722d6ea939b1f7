// Errors of spend and token budgets (src/budgets): a model or embedding call refused before it was dispatched.
import { GatewayError } from './gateway-error.js';

/**
 * The call's worst case would cross budget `budgetId`; `retryAfterMs` counts to the end of its window. /v1 answers
 * 429 `insufficient_quota` with Retry-After, JSON-RPC -32603 with data.kind and data.retryAfterMs.
 */
export const budgetExceeded = (budgetId: string, retryAfterMs: number) =>
  new GatewayError(
    'budget_exceeded',
    `Budget '${budgetId}' is at its limit: the model call was refused before it was sent; it resets at the end of the budget's window`,
    { budgetId, retryAfterMs },
  );
