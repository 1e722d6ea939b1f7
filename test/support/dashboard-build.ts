// Makes sure web/dist holds a build of the current web/ sources (npm install builds it; a stale or missing one is rebuilt).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'vite';

export const WEB_ROOT = resolve(import.meta.dirname, '../../web');
export const WEB_DIST = join(WEB_ROOT, 'dist');

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The built dashboard the tests serve; the vitest global setup has built it (tests never build, so workers cannot race). */
export function builtDashboard(): string {
  if (!existsSync(join(WEB_DIST, 'index.html')))
    throw new Error(`No dashboard build in ${WEB_DIST}: run npm run build:web`);
  return WEB_DIST;
}

/** Builds the dashboard when web/dist is missing or older than a source file; returns the dist path. */
export async function ensureDashboardBuild(): Promise<string> {
  const index = join(WEB_DIST, 'index.html');
  const isFresh =
    existsSync(index) &&
    existsSync(join(WEB_DIST, '.vite', 'manifest.json')) &&
    statSync(index).mtimeMs >= newestSourceMs(WEB_ROOT);
  if (!isFresh) await build({ root: WEB_ROOT, logLevel: 'warn' });
  return WEB_DIST;
}
