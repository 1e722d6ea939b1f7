// Vitest global setup: bundles the CLI from the current src/ once per run (as `npm run build` bundles it, but from the
// TypeScript sources), so CLI tests start a process that reads one file instead of compiling hundreds under tsx.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

const ROOT = resolve(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of this run's CLI bundle, built from src/cli.ts; see support/cli.ts. */
    cliBundle: string;
  }
}

export default async function bundleCli(project: TestProject): Promise<() => Promise<void>> {
  // Inside the package (not the system temp dir): the CLI finds package.json, web/dist and node_modules from its own path.
  await mkdir(join(ROOT, 'dist'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, 'dist', 'test-cli-'));
  const outfile = join(dir, 'cli.bundle.mjs');
  await build({
    entryPoints: [join(ROOT, 'src', 'cli.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'playwright-core'],
    banner: {
      js: "import { createRequire as gatewayCreateRequire } from 'node:module'; const require = gatewayCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  project.provide('cliBundle', outfile);
  return () => rm(dir, { recursive: true, force: true });
}
