// Test runner settings: tests live in test/, mirror src/, run in forked workers (native SQLite addon); the dashboard is built once first.
// Files share their worker's module cache (isolate: false): importing the gateway again for every file was half the run.
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
    isolate: false,
    // Most files wait on servers and sockets rather than compute: two workers keep 2 cores busy (vitest's default on 2
    // cores is one worker), and the suite takes about half as long. Three were faster still but let a watched-file test
    // time out under the load.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
