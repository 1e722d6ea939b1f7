// The responses.ttlDays key: its default and the refusal of values that cannot be a retention in days.
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

describe('config: responses.ttlDays', () => {
  it('keeps responses 30 days unless told otherwise', () => {
    expect(validateConfig({}, 'empty').responses).toEqual({ ttlDays: 30, maxBackgroundPerToken: 16 });
    expect(validateConfig({ responses: { ttlDays: 7 } }, 'set').responses).toEqual({
      ttlDays: 7,
      maxBackgroundPerToken: 16,
    });
  });

  it('refuses zero, fractions and unknown keys, naming the key', () => {
    expect(problemsOf({ responses: { ttlDays: 0 } })[0]).toMatch(/^responses\.ttlDays: /);
    expect(problemsOf({ responses: { ttlDays: 1.5 } })[0]).toMatch(/^responses\.ttlDays: /);
    expect(problemsOf({ responses: { maxBackgroundPerToken: 0 } })[0]).toMatch(/^responses\.maxBackgroundPerToken: /);
    expect(problemsOf({ responses: { ttlHours: 1 } })[0]).toMatch(/^responses/);
  });
});
