// Flat as work accumulates (issues 10, 33): a gateway process answers 200,000 plain chat completions at 32 connections in
// one continuous load; the last 20,000 are held to the throughput, CPU per completion and RSS of the first 20,000.
import { chatLoad, isCompletion } from './chat-completions.bench.js';
import { checkRun, isEntryPoint, runStandalone, wantsSurface, type BenchOptions, type BenchRow } from './lib/bench.js';
import { BENCH_AGENT } from './lib/fake-llm.js';
import type { FigureRow } from './lib/figures.js';
import { runLoadSegments } from './lib/load.js';
import { startGatewayProcessOverLlm } from './lib/portkey.js';
import { processTreesCpuSec } from './lib/process-cpu.js';
import { residentMb } from './lib/process-start.js';
import { waitForQuietMachine, CONTENDED_SHARE } from './lib/machine-load.js';
import { formatRun, type LoadResult, type RowTarget } from './lib/measure.js';

/** Completions in the whole run, warm-up included; `--max-requests` lowers it for a quick run. */
const TOTAL_REQUESTS = 200_000;
/** The first and the last measured window are each this share of the total (20,000 of 200,000). */
const WINDOW_SHARE = 0.1;
/** Below this total the windows are too small to say anything. */
const MIN_TOTAL_REQUESTS = 1_000;
const CONNECTIONS = 32;
/** The last window keeps at least 90% of the first window's throughput. */
const FLAT_TARGET: RowTarget = { minRatio: 0.9 };
/** The last window's CPU per completion and the RSS at its end are at most 110% of the first window's (issue 33). */
const MAX_GROWTH = 1.1;
/** The run ends by itself even if the gateway slows to a crawl; a run cut short reports no row. */
const MAX_RUN_MS = 60 * 60_000;

interface Plan {
  total: number;
  warmup: number;
  window: number;
  middle: number;
}

/** `total` completions: the warm-up (at most what leaves room for the windows), the first window, the middle, the last window. */
export function planRun(options: Pick<BenchOptions, 'maxRequests' | 'warmupRequests'>): Plan {
  const total = Math.min(TOTAL_REQUESTS, options.maxRequests);
  if (total < MIN_TOTAL_REQUESTS)
    throw new RangeError(`the accumulation bench needs --max-requests of at least ${MIN_TOTAL_REQUESTS}, got ${total}`);
  const window = Math.round(total * WINDOW_SHARE);
  const warmup = Math.min(options.warmupRequests, total - 3 * window);
  return { total, warmup, window, middle: total - warmup - 2 * window };
}

function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const plan = planRun(options);
  const surface = `POST /v1/chat/completions c=${CONNECTIONS} last vs first ${formatCount(plan.window)} of ${formatCount(plan.total)}`;
  if (!wantsSurface(options, surface)) return [];
  options.log(
    `${surface}: warm-up ${formatCount(plan.warmup)}, first ${formatCount(plan.window)}, ` +
      `middle ${formatCount(plan.middle)}, last ${formatCount(plan.window)} completions in one load run`,
  );
  const quiet = await waitForQuietMachine({ maxWaitMs: 10_000 });
  if (!quiet.isQuiet)
    options.log(`  (other processes use ${Math.round(quiet.lastShare * 100)}% of the machine; measuring anyway)`);

  const names = [
    `first ${formatCount(plan.window)}`,
    `middle ${formatCount(plan.middle)}`,
    `last ${formatCount(plan.window)}`,
  ];
  const gateway = await startGatewayProcessOverLlm();
  /** The gateway process's CPU seconds and RSS at the start of the measurement and at the end of each window. */
  const cpuSec: number[] = [];
  const rssMb: number[] = [];
  const sample = async (index: number) => {
    cpuSec[index] = processTreesCpuSec({ gateway: [gateway.pid] }).gateway ?? Number.NaN;
    rssMb[index] = await residentMb(gateway.pid);
  };
  let segments: LoadResult[];
  try {
    const load = chatLoad(
      {
        host: gateway.host,
        port: gateway.port,
        connections: CONNECTIONS,
        model: BENCH_AGENT,
        token: gateway.token,
        isStream: false,
      },
      { warmupMs: 0, warmupRequests: plan.warmup, durationMs: MAX_RUN_MS, maxRequests: plan.total },
    );
    const samples: Promise<void>[] = [];
    segments = await runLoadSegments(
      { ...load, segments: [plan.window, plan.middle, plan.window] },
      (result, index) => {
        samples.push(sample(index + 1));
        options.log(
          `${formatRun(names[index] ?? '', result)}${result.otherCpu > CONTENDED_SHARE ? '  [contended]' : ''}`,
        );
      },
      () => samples.push(sample(0)),
    );
    await Promise.all(samples);
  } finally {
    await gateway.close();
  }
  segments = segments.map((result, index) =>
    withProcessCpu(result, (cpuSec[index + 1] ?? Number.NaN) - (cpuSec[index] ?? Number.NaN)),
  );

  const [first, middle, last] = segments;
  if (first === undefined || middle === undefined || last === undefined) {
    throw new Error(`${surface}: the run stopped after ${segments.length} of 3 windows (time cap ${MAX_RUN_MS} ms)`);
  }
  segments.forEach((result, index) => checkRun(`${surface} ${names[index] ?? ''}`, result, isCompletion));
  if (first.warmupOps < plan.warmup) options.log(`  [warm-up only ${first.warmupOps} of ${plan.warmup} requests]`);
  const firstRss = rssMb[1] ?? Number.NaN;
  const lastRss = rssMb[3] ?? Number.NaN;
  options.log(
    `  last/first throughput ${(last.opsPerSec / first.opsPerSec).toFixed(3)} (target >= ${FLAT_TARGET.minRatio}); ` +
      `gateway process CPU per completion (every thread) first ${first.serverCpuUsPerOp.toFixed(1)} us, last ${last.serverCpuUsPerOp.toFixed(1)} us ` +
      `(${(last.serverCpuUsPerOp / first.serverCpuUsPerOp).toFixed(3)}, target <= ${MAX_GROWTH}); RSS after the first window ` +
      `${firstRss.toFixed(1)} MB, after the last ${lastRss.toFixed(1)} MB (${(lastRss / firstRss).toFixed(3)}, target <= ${MAX_GROWTH})`,
  );
  // One continuous run cannot wait for a quiet machine between its windows, so say when the ratio is unfair.
  if (first.otherCpu > CONTENDED_SHARE || last.otherCpu > CONTENDED_SHARE) {
    options.log(
      '  (a window shared the machine: its throughput is not comparable; CPU per completion moves much less)',
    );
  }
  const figure = (name: string, unit: string, firstValue: number, lastValue: number): FigureRow => ({
    kind: 'figure',
    surface: `${surface} ${name} (baseline first, gateway last)`,
    unit,
    baseline: [firstValue],
    gateway: [lastValue],
    maxGateway: Number((firstValue * MAX_GROWTH).toFixed(1)),
  });
  // The tables' "baseline" is the first window and their "gateway" the last, both of the same gateway.
  return [
    { surface, connections: CONNECTIONS, depth: 1, target: FLAT_TARGET, baseline: [first], gateway: [last] },
    figure('CPU per completion', 'us', first.serverCpuUsPerOp, last.serverCpuUsPerOp),
    figure('gateway RSS', 'MB', firstRss, lastRss),
  ];
}

/** A window's server figures as the gateway process's (every thread, from /proc), not the bench main thread's. */
function withProcessCpu(result: LoadResult, serverCpuSec: number): LoadResult {
  const requests = result.ops + result.errors;
  return {
    ...result,
    serverCpuUsPerOp: requests === 0 ? Number.NaN : (serverCpuSec * 1e6) / requests,
    serverBusy: serverCpuSec / (result.elapsedMs / 1000),
  };
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
