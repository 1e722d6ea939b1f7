// The dashboard's first load stays under its JavaScript budget: entry chunk, its static imports and the default page.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtDashboard } from '../support/dashboard-build.js';

/** Issue 15: "first load under 100 kB of JavaScript gzipped". */
const FIRST_LOAD_BUDGET_BYTES = 100 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

describe('dashboard bundle', () => {
  let dist: string;
  let manifest: Record<string, ManifestChunk>;
  beforeAll(() => {
    dist = builtDashboard();
    manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  });

  /** Every chunk `key` pulls in before it runs (static imports, transitively). */
  function staticClosure(key: string, seen = new Set<string>()): Set<string> {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const imported of manifest[key]?.imports ?? []) staticClosure(imported, seen);
    return seen;
  }

  it('loads at most 100 kB of gzipped JavaScript for the first page, the rest split per page', () => {
    const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry === true);
    expect(entries).toHaveLength(1);
    const [entryKey, entry] = entries[0] ?? ['', { file: '' }];
    const overview = (entry.dynamicImports ?? []).find((key) => key.endsWith('pages/overview.tsx'));
    expect(overview, 'the overview page is a chunk of its own').toBeDefined();
    // Every page is loaded on demand, never with the entry.
    expect((entry.dynamicImports ?? []).filter((key) => key.includes('/pages/')).length).toBeGreaterThanOrEqual(11);
    const firstLoad = new Set([...staticClosure(entryKey), ...staticClosure(overview ?? '')]);
    const gzippedBytes = [...firstLoad]
      .map((key) => manifest[key]?.file ?? '')
      .filter((file) => file.endsWith('.js'))
      .reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, file))).length, 0);
    expect(gzippedBytes).toBeGreaterThan(0);
    expect(gzippedBytes, `first load is ${gzippedBytes} bytes of gzipped JavaScript`).toBeLessThanOrEqual(
      FIRST_LOAD_BUDGET_BYTES,
    );
  });
});
