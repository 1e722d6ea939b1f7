// The contract between bench/run-all.ts and each bench/*.bench.ts: options, environment header, run helpers.
import { cpus, platform, release } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, runLoadOnProcesses, type LoadSpec } from './load.js';
import { CONTENDED_SHARE, waitForQuietMachine } from './machine-load.js';
import type { LoadWindow } from './load-run.js';
import { formatFigures, isFigureRow, type FigureRow } from './figures.js';
import {
  formatComparison,
  formatProxyComparison,
  formatRun,
  type ComparisonRow,
  type LoadResult,
  type RowTarget,
} from './measure.js';

export interface BenchOptions extends LoadWindow {
  /** Requests every run finishes unmeasured before its window opens (besides `warmupMs`). */
  warmupRequests: number;
  /** Each scenario runs this many times per side, alternating which side goes first; medians are compared. */
  rounds: number;
  /** Only scenarios whose surface name contains this text run ('' = all). */
  only: string;
  log: (line: string) => void;
}

/** A load comparison, or single figures per round (startup). */
export type BenchRow = ComparisonRow | FigureRow;

/** What every bench/*.bench.ts exports: `run` measures its surfaces and returns one row per scenario. */
export type BenchRun = (options: BenchOptions) => Promise<BenchRow[]>;

/** The issue's steady state starts after 5,000 requests; at the rates of /health that is far under the 1 s. */
export const DEFAULT_WINDOW = {
  warmupMs: 1_000,
  warmupRequests: 5_000,
  durationMs: 3_000,
  maxRequests: 2_000_000,
} as const satisfies LoadWindow;
export const DEFAULT_ROUNDS = 3;

/** `--warmup-ms N --warmup-requests N --duration-ms N --max-requests N --rounds N --only TEXT`; every value is bounded. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'warmup-ms': { type: 'string' },
      'warmup-requests': { type: 'string' },
      'duration-ms': { type: 'string' },
      'max-requests': { type: 'string' },
      rounds: { type: 'string' },
      only: { type: 'string' },
    },
  });
  const bounded = (text: string | undefined, fallback: number, max: number) => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(value) || value < 0 || value > max)
      throw new RangeError(`expected an integer from 0 to ${max}, got ${text}`);
    return value;
  };
  return {
    warmupMs: bounded(values['warmup-ms'], DEFAULT_WINDOW.warmupMs, 60_000),
    warmupRequests: bounded(values['warmup-requests'], DEFAULT_WINDOW.warmupRequests, 1_000_000),
    durationMs: Math.max(100, bounded(values['duration-ms'], DEFAULT_WINDOW.durationMs, 60_000)),
    maxRequests: Math.max(1, bounded(values['max-requests'], DEFAULT_WINDOW.maxRequests, 10_000_000)),
    rounds: Math.max(1, bounded(values.rounds, DEFAULT_ROUNDS, 20)),
    only: values.only ?? '',
    log: (line) => console.log(line),
  };
}

/** Machine, runtime and date: printed before the results, and copied into bench/RESULTS.md. */
export function environmentSummary(): string {
  const cpuList = cpus();
  return [
    `date: ${new Date().toISOString()}`,
    `node: ${process.version} (${platform()} ${release()}, ${process.arch})`,
    `cpus: ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown'}`,
  ].join('\n');
}

/** One side of a comparison: how to start its server, the load to point at it, and what a right answer is. */
export interface Contender<Server extends { close(): Promise<void> }> {
  label: string;
  start: () => Promise<Server>;
  loadFor: (server: Server) => LoadSpec;
  isExpectedBody: (body: unknown) => boolean;
  /**
   * For a server that runs as its own process: the pids whose process trees serve it. Its server figures are
   * then theirs (every thread, from /proc), not the bench main thread's.
   */
  pids?: (server: Server) => readonly number[];
}

export interface Scenario {
  surface: string;
  connections: number;
  depth: number;
  /** What the row is held to; TARGET_RATIO when absent. */
  target?: RowTarget;
}

/**
 * Measures both sides (and the optional third contender, a stateless proxy in front of the same upstream) `options.rounds` times, alternating which goes first so that neither always runs on a
 * cooler or warmer machine. Each run gets a fresh server and its own load worker, and first waits (bounded)
 * for other processes on the machine to go quiet.
 */
export async function compare<
  Baseline extends { close(): Promise<void> },
  Gateway extends { close(): Promise<void> },
  Proxy extends { close(): Promise<void> } = { close(): Promise<void> },
>(
  scenario: Scenario,
  baseline: Contender<Baseline>,
  gateway: Contender<Gateway>,
  options: BenchOptions,
  proxy?: Contender<Proxy>,
): Promise<ComparisonRow> {
  options.log(`${scenario.surface} (${scenario.connections} connections x ${scenario.depth} in flight)`);
  const row: ComparisonRow = { ...scenario, baseline: [], gateway: [], ...(proxy === undefined ? {} : { proxy: [] }) };
  for (let round = 1; round <= options.rounds; round += 1) {
    const measureBaseline = async () => row.baseline.push(await measure(scenario, baseline, round, options));
    const measureGateway = async () => row.gateway.push(await measure(scenario, gateway, round, options));
    // The proxy, when there is one, runs between the other two, so it never always goes first or last either.
    const measureProxy = async () => {
      if (proxy !== undefined) row.proxy?.push(await measure(scenario, proxy, round, options));
    };
    if (round % 2 === 1) {
      await measureBaseline();
      await measureProxy();
      await measureGateway();
    } else {
      await measureGateway();
      await measureProxy();
      await measureBaseline();
    }
  }
  return row;
}

/** A run that shared the machine is measured once more (bounded); the less contended attempt is kept. */
const CONTENDED_RETRIES = 1;

async function measure<Server extends { close(): Promise<void> }>(
  scenario: Scenario,
  contender: Contender<Server>,
  round: number,
  options: BenchOptions,
): Promise<LoadResult> {
  let kept: LoadResult | undefined;
  for (let attempt = 0; attempt <= CONTENDED_RETRIES; attempt += 1) {
    const quiet = await waitForQuietMachine({ maxWaitMs: 10_000 });
    if (!quiet.isQuiet) {
      options.log(`  (other processes use ${Math.round(quiet.lastShare * 100)}% of the machine; measuring anyway)`);
    }
    const server = await contender.start();
    let result: LoadResult;
    try {
      const spec = contender.loadFor(server);
      result =
        contender.pids === undefined ? await runLoad(spec) : await runLoadOnProcesses(spec, contender.pids(server));
    } finally {
      await server.close();
    }
    checkRun(`${scenario.surface} ${contender.label}`, result, contender.isExpectedBody);
    const isContended = result.otherCpu > CONTENDED_SHARE;
    const shortWarmup =
      result.warmupOps < options.warmupRequests ? `  [warm-up only ${result.warmupOps} requests]` : '';
    options.log(
      `${formatRun(`#${round} ${contender.label}`, result)}${isContended ? '  [contended]' : ''}${shortWarmup}`,
    );
    if (kept === undefined || !(result.otherCpu >= kept.otherCpu)) kept = result;
    if (!isContended) break;
  }
  if (kept === undefined) throw new RangeError('CONTENDED_RETRIES must be at least 0');
  return kept;
}

/**
 * Fails loudly when a run did not exercise what it claims (no successes, or an unexpected answer), so a
 * misconfigured run never prints a plausible figure. This checks correctness, never timing.
 */
export function checkRun(label: string, result: LoadResult, isExpectedBody: (body: unknown) => boolean): void {
  let body: unknown;
  try {
    body = JSON.parse(result.sampleBody);
  } catch {
    body = result.sampleBody;
  }
  if (result.ops === 0 || !isExpectedBody(body)) {
    throw new Error(
      `${label}: unexpected answer (ops ${result.ops}, errors ${result.errors}): ${result.sampleBody.slice(0, 200)}`,
    );
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function wantsSurface(options: BenchOptions, surface: string): boolean {
  return options.only === '' || surface.includes(options.only);
}

/** True when `moduleUrl` is the script node was started with (so a bench file can also run on its own). */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && pathToFileURL(entry).href === moduleUrl;
}

/** The tables printed after a run: load comparisons, then gateway vs proxy and single figures where there are any. */
export function formatReport(rows: readonly BenchRow[]): string {
  const figures = rows.filter(isFigureRow);
  const loads = rows.filter((row): row is ComparisonRow => !isFigureRow(row));
  const tables: string[] = [];
  if (loads.length > 0) tables.push(formatComparison(loads));
  if (loads.some((row) => row.proxy !== undefined)) tables.push(formatProxyComparison(loads));
  if (figures.length > 0) tables.push(formatFigures(figures));
  return tables.join('\n\n');
}

/** Runs one bench file on its own: `npx tsx bench/ws-ping.bench.ts [--duration-ms N]`. */
export async function runStandalone(run: BenchRun): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2));
  options.log(environmentSummary());
  const rows = await run(options);
  options.log(`\n${formatReport(rows)}`);
}
