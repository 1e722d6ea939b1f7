// Test runner settings: tests live in test/, mirror src/, run in forked workers (native SQLite addon); the dashboard is built once first.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: [
      'test/support/dashboard-global-setup.ts',
      'test/support/postgres-global-setup.ts',
      'test/support/cli-bundle-global-setup.ts',
    ],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
