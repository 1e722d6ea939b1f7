// The budgets config section: spend and token limits per agent, token, tenant or the whole gateway, over a UTC day, a
// UTC month or a rolling window, enforced before each model call (src/budgets). Hot-applied.
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

/** Whom a budget counts: one agent's calls, one token's, one tenant's, or every call of the gateway. */
const budgetScope = z
  .string()
  .regex(
    /^(?:(?:agent|token|tenant):[A-Za-z0-9._-]+|global)$/,
    'must be agent:<id>, token:<id>, tenant:<id> or global',
  );

/** day and month start at 00:00 UTC; a rolling window counts the last `rollingMs`. */
const budgetWindow = z.union([
  z.literal('day'),
  z.literal('month'),
  z.strictObject({ rollingMs: durationMs(1).min(60_000) }),
]);

export const budgetSchema = z
  .strictObject({
    /** Names the budget in refusals, events and budgets.* methods. */
    id: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/)
      .max(64),
    scope: budgetScope,
    window: budgetWindow.default('day'),
    /** Cost in USD the window may spend, priced from the model catalog. */
    maxCostUsd: z.number().positive().max(1_000_000).optional(),
    /** Tokens (input + output) the window may use. */
    maxTokens: positiveInt.max(1_000_000_000_000).optional(),
    /** block: a call that would cross a limit is refused before dispatch; warn: it runs, and the crossing is reported. */
    action: z.enum(['block', 'warn']).default('block'),
    /** Fraction of a limit at which budget:warning is emitted once per window. */
    warnAtFraction: z.number().gt(0).lt(1).default(0.8),
  })
  .refine((budget) => budget.maxCostUsd !== undefined || budget.maxTokens !== undefined, {
    message: 'a budget needs maxCostUsd, maxTokens or both',
  });

export const budgetsConfigSchema = z.array(budgetSchema).max(10_000).default([]);

export type BudgetConfig = z.infer<typeof budgetSchema>;
