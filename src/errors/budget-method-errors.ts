// Errors of the budgets.* methods: a budget id not in the config, a scope a token may not read.
import { GatewayError, notFound } from './gateway-error.js';

export const budgetNotFound = (id: string) => notFound(`Budget '${id}' not found`, { param: 'id' });

/** budgets.mine asked for a scope that is neither the caller token's nor one of its tenants'; nothing of it is told. */
export const budgetScopeForbidden = (scope: string) =>
  new GatewayError('forbidden', `Budget scope '${scope}' is not this token's or one of its tenants'`, {
    param: 'scope',
  });
