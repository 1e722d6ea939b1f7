// The `browser:` config section: its defaults, and values refused with the key named.
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

describe('browser config', () => {
  it('defaults to Debian Chromium, headless, with private addresses refused', () => {
    expect(validateConfig({}, 'empty').browser).toEqual({
      executablePath: '/usr/bin/chromium',
      headless: true,
      idleMs: 300_000,
      timeoutMs: 30_000,
      allowPrivateNetwork: false,
      viewport: { width: 1280, height: 720 },
      maxTabs: 20,
      consoleEntriesPerTab: 500,
      maxSnapshotChars: 200_000,
    });
  });

  it('refuses a zero timeout, an oversized viewport and unknown keys, naming each', () => {
    const problems = problemsOf({ browser: { timeoutMs: 0, viewport: { width: 100_000 }, sandbox: false } });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('browser.timeoutMs'),
        expect.stringContaining('browser.viewport.width'),
        expect.stringContaining('browser.sandbox'),
      ]),
    );
  });
});
