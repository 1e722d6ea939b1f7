// `npm run bench`: runs every bench/*.bench.ts in turn and prints one comparison table for all of them.
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { environmentSummary, formatReport, parseBenchArgs, type BenchRow, type BenchRun } from './lib/bench.js';

function isBenchModule(value: unknown): value is { run: BenchRun } {
  return typeof value === 'object' && value !== null && 'run' in value && typeof value.run === 'function';
}

async function main(): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2));
  const benchDir = fileURLToPath(new URL('.', import.meta.url));
  const files = (await readdir(benchDir)).filter((name) => name.endsWith('.bench.ts')).sort();
  options.log(environmentSummary());
  options.log(
    `window: warm-up ${options.warmupMs} ms and ${options.warmupRequests} requests, measure ${options.durationMs} ms (at most ${options.maxRequests} requests), ` +
      `${options.rounds} rounds per side\n`,
  );

  const rows: BenchRow[] = [];
  for (const file of files) {
    options.log(`== ${file}`);
    const module: unknown = await import(new URL(file, import.meta.url).href);
    if (!isBenchModule(module)) throw new TypeError(`${file} does not export run(options)`);
    rows.push(...(await module.run(options)));
    options.log('');
  }
  options.log(formatReport(rows));
}

await main();
