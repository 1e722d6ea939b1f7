// The memory: config section: documented defaults, strict keys and the …Ms time bound.
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

describe('memory config', () => {
  it('fills every key with its default', () => {
    expect(validateConfig({}, 'empty').memory).toEqual({
      enabled: true,
      recall: { enabled: true, topK: 5, maxTokens: 800 },
      embeddingCacheMaxEntries: 100_000,
      lifecycle: { sweepIntervalMs: 3_600_000, demoteAfterDays: 30, evictAfterDays: 90, maxDemotedPerAgent: 10_000 },
    });
  });

  it('keeps what is set and fills the rest', () => {
    const { memory } = validateConfig(
      { memory: { recall: { topK: 3, minScore: 0.2 }, lifecycle: { sweepIntervalMs: 0 } } },
      'partial',
    );
    expect(memory.recall).toEqual({ enabled: true, topK: 3, maxTokens: 800, minScore: 0.2 });
    expect(memory.lifecycle.sweepIntervalMs).toBe(0);
  });

  it('refuses unknown keys, bad bounds and a sweep interval past the timer limit, naming the key', () => {
    expect(problemsOf({ memory: { recal: {} } }).join('\n')).toContain('memory');
    expect(problemsOf({ memory: { recall: { topK: 0 } } }).join('\n')).toContain('memory.recall.topK');
    expect(problemsOf({ memory: { recall: { minScore: 2 } } }).join('\n')).toContain('memory.recall.minScore');
    expect(problemsOf({ memory: { lifecycle: { sweepIntervalMs: 2_147_483_648 } } }).join('\n')).toMatch(
      /memory\.lifecycle\.sweepIntervalMs.*2147483647/,
    );
    expect(problemsOf({ memory: { embeddingCacheMaxEntries: 1.5 } }).join('\n')).toContain(
      'memory.embeddingCacheMaxEntries',
    );
  });
});
