// The orchestrate tool's input: strict, the script and the capabilities list capped.
import { describe, expect, it } from 'vitest';
import { orchestrateInput } from '../../src/orchestrate/index.js';

describe('orchestrate input', () => {
  it('takes a script with optional capabilities and timeoutMs', () => {
    expect(orchestrateInput.safeParse({ script: 'return 1;', capabilities: ['a'], timeoutMs: 1_000 }).success).toBe(
      true,
    );
  });

  it('refuses a script over 100,000 characters, an empty one, unknown keys and bad timeouts', () => {
    for (const input of [
      { script: 'x'.repeat(100_001) },
      { script: '' },
      { script: 'return 1;', shell: true },
      { script: 'return 1;', timeoutMs: 0 },
      { script: 'return 1;', timeoutMs: 1.5 },
      { script: 'return 1;', capabilities: Array.from({ length: 65 }, () => 'a') },
    ]) {
      expect(orchestrateInput.safeParse(input).success, JSON.stringify(input).slice(0, 60)).toBe(false);
    }
  });
});
