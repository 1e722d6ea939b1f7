// The budget rule: which budgets a call counts against, a block budget refusing the ask that would cross it (with the
// wait to its window's end), a warn budget never refusing, and the warning fraction.
import { describe, expect, it } from 'vitest';
import { applicableBudgets, fits } from '../../src/budgets/applicable.js';
import { budgetSchema, type BudgetConfig } from '../../src/config/budgets-schema.js';

const budget = (input: Record<string, unknown>): BudgetConfig => budgetSchema.parse(input);
const NOW = Date.UTC(2026, 10, 28, 18);
const subject = { agentId: 'coder', tokenId: 'ci', tenantId: 'acme' };

describe('budget rule', () => {
  it("counts the call's agent, token, tenant and global budgets, and no other", () => {
    const all = [
      budget({ id: 'a', scope: 'agent:coder', maxTokens: 1 }),
      budget({ id: 'b', scope: 'agent:other', maxTokens: 1 }),
      budget({ id: 'c', scope: 'token:ci', maxTokens: 1 }),
      budget({ id: 'd', scope: 'tenant:acme', maxTokens: 1 }),
      budget({ id: 'e', scope: 'global', maxTokens: 1 }),
      budget({ id: 'f', scope: 'tenant:default', maxTokens: 1 }),
    ];
    expect(applicableBudgets(all, subject).map((entry) => entry.id)).toEqual(['a', 'c', 'd', 'e']);
  });

  it('refuses an ask that would cross a block budget, with the wait to the end of its UTC day', () => {
    const daily = budget({ id: 'daily', scope: 'agent:coder', maxCostUsd: 0.01 });
    const held = () => ({ costMicroUsd: 8000, tokens: 0 });
    // Exactly at the limit fits, and the budget is exhausted from then on.
    expect(fits([daily], held, { costMicroUsd: 2000, tokens: 10 }, NOW)).toEqual({
      fits: true,
      warnings: ['daily'],
      exhausted: ['daily'],
    });
    expect(fits([daily], held, { costMicroUsd: 2100, tokens: 10 }, NOW)).toEqual({
      fits: false,
      budgetId: 'daily',
      retryAfterMs: 6 * 3_600_000,
    });
  });

  it('lets a warn budget be crossed, naming it as a warning and exhausted; below the fraction nothing is named', () => {
    const soft = budget({ id: 'soft', scope: 'global', maxTokens: 1_000, action: 'warn', warnAtFraction: 0.5 });
    expect(fits([soft], () => ({ costMicroUsd: 0, tokens: 990 }), { costMicroUsd: 0, tokens: 50 }, NOW)).toEqual({
      fits: true,
      warnings: ['soft'],
      exhausted: ['soft'],
    });
    expect(fits([soft], () => ({ costMicroUsd: 0, tokens: 100 }), { costMicroUsd: 0, tokens: 50 }, NOW)).toEqual({
      fits: true,
      warnings: [],
      exhausted: [],
    });
  });
});
