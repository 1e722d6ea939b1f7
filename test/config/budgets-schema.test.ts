// The budgets config section: defaults of a budget, and refusals naming the key (a scope of no known kind, a budget
// with no limit, a warning fraction out of range).
import { describe, expect, it } from 'vitest';
import { ConfigError, validateConfig } from '../../src/config/index.js';

function problemsOf(document: unknown): string[] {
  try {
    validateConfig(document, 'test.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('budgets config', () => {
  it('has no budgets by default, and fills a budget’s window, action and warning fraction', () => {
    expect(validateConfig({}, 'empty').budgets).toEqual([]);
    const { budgets } = validateConfig({ budgets: [{ id: 'coder-daily', scope: 'agent:coder', maxCostUsd: 5 }] }, 'b');
    expect(budgets).toEqual([
      { id: 'coder-daily', scope: 'agent:coder', window: 'day', maxCostUsd: 5, action: 'block', warnAtFraction: 0.8 },
    ]);
    expect(
      validateConfig(
        { budgets: [{ id: 'all', scope: 'global', window: { rollingMs: 3_600_000 }, maxTokens: 1e6 }] },
        'b',
      ).budgets[0]?.window,
    ).toEqual({ rollingMs: 3_600_000 });
  });

  it('refuses a scope of no known kind, a budget without a limit and a warning fraction of 1, naming each', () => {
    const problems = problemsOf({
      budgets: [
        { id: 'a', scope: 'team:x', maxCostUsd: 1 },
        { id: 'b', scope: 'token:ci' },
        { id: 'c', scope: 'tenant:acme', maxTokens: 10, warnAtFraction: 1 },
      ],
    });
    expect(
      problems.some((problem) => problem === 'budgets[0].scope: must be agent:<id>, token:<id>, tenant:<id> or global'),
    ).toBe(true);
    expect(problems.some((problem) => problem === 'budgets[1]: a budget needs maxCostUsd, maxTokens or both')).toBe(
      true,
    );
    expect(problems.some((problem) => problem.startsWith('budgets[2].warnAtFraction'))).toBe(true);
  });
});
