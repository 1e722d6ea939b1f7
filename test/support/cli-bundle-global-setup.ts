// Vitest global setup: bundles the CLI from the current src/ once per run (as `npm run build` bundles it, chunks and all,
// but from the TypeScript sources), so CLI tests start a process that reads a few files instead of compiling hundreds.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleCli } from '../../scripts/lib/cli-bundle.js';

const ROOT = resolve(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of this run's CLI bundle, built from src/cli.ts; see support/cli.ts. */
    cliBundle: string;
  }
}

export default async function bundleCliOnce(project: TestProject): Promise<() => Promise<void>> {
  // Inside the package (not the system temp dir): the CLI finds package.json, web/dist and node_modules from its own path.
  await mkdir(join(ROOT, 'dist'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, 'dist', 'test-cli-'));
  const outfile = join(dir, 'cli.bundle.mjs');
  await bundleCli(join(ROOT, 'src', 'cli.ts'), dir);
  project.provide('cliBundle', outfile);
  return () => rm(dir, { recursive: true, force: true });
}
