// Measurement vocabulary shared by every benchmark: load results, percentiles, ratios and the printed tables.
import { CONTENDED_SHARE } from './machine-load.js';

/** What one load run measured over its measurement window (warm-up excluded). */
export interface LoadResult {
  /** Responses that completed inside the measurement window and passed the load generator's check. */
  ops: number;
  /** Failed or unexpected responses (bad status, JSON-RPC error, wrong id, dropped connection). */
  errors: number;
  /** Requests that finished during the warm-up before this window (0 for a later segment of the same run). */
  warmupOps: number;
  /** Length of the measurement window actually run, in ms (shorter when the request cap was reached). */
  elapsedMs: number;
  opsPerSec: number;
  latencyMs: LatencySummary;
  /** Share of the load generator thread's wall time its event loop was busy (0..1); near 1 = client-bound. */
  loadgenBusy: number;
  /** Share of the server thread's wall time its event loop was busy during the window (0..1). */
  serverBusy: number;
  /** CPU time of the server thread per request, in µs (NaN where the platform does not say). */
  serverCpuUsPerOp: number;
  /** Share of the machine's CPU (all cores) that other processes used during the window (0..1, NaN = unknown). */
  otherCpu: number;
  /** The first response body seen, so a benchmark can check it hit the right thing. */
  sampleBody: string;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Collects per-request latencies (ms) up to a fixed cap, so memory stays bounded on long runs. */
export class LatencyRecorder {
  readonly #samples: Float64Array;
  #count = 0;

  constructor(maxSamples: number) {
    this.#samples = new Float64Array(maxSamples);
  }

  record(latencyMs: number): void {
    if (this.#count < this.#samples.length) this.#samples[this.#count++] = latencyMs;
  }

  summary(): LatencySummary {
    const sorted = this.#samples.slice(0, this.#count).sort();
    return {
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: sorted.length === 0 ? 0 : (sorted[sorted.length - 1] ?? 0),
    };
  }
}

/** Nearest-rank percentile of an ascending array; 0 for an empty one. */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

/**
 * What a row is held to. Rows without one are held to TARGET_RATIO; a row with one is held to each bound it
 * sets.
 */
export interface RowTarget {
  /** Gateway median throughput over baseline median throughput must be at least this. */
  minRatio?: number;
  /** Gateway median throughput over the stateless proxy's (rows that measure one) must be at least this. */
  minProxyRatio?: number;
  /** Gateway p50 minus baseline p50 (the median runs') must be at most this, in ms. */
  maxAddedP50Ms?: number;
  /**
   * Gateway server-thread CPU per request minus the baseline's (medians of all runs) must be at most this,
   * in µs. Where the baseline is the upstream that shares the thread with the gateway, this is the gateway's own.
   */
  maxAddedCpuUsPerOp?: number;
}

/** One scenario measured in rounds: the same load against the bare baseline and against the gateway. */
export interface ComparisonRow {
  surface: string;
  /** Concurrent connections, each with `depth` requests in flight. */
  connections: number;
  depth: number;
  target?: RowTarget;
  /** One result per round, in round order. */
  baseline: LoadResult[];
  gateway: LoadResult[];
  /** A stateless reverse proxy in front of the same upstream, where the bench measures one. */
  proxy?: LoadResult[];
}

function isClean(result: LoadResult): boolean {
  return !(result.otherCpu > CONTENDED_SHARE);
}

/**
 * Whether the summary of `row` compares clean runs (other processes under CONTENDED_SHARE of the machine) on
 * both sides. When either side has none, both sides are summarised over all their runs, so the comparison is
 * still like with like.
 */
export function isCleanComparison(row: ComparisonRow): boolean {
  return row.baseline.some(isClean) && row.gateway.some(isClean);
}

/** The runs a side is summarised over: its clean runs when both sides have some, else all of them. */
export function summarisedRuns(row: ComparisonRow, side: 'baseline' | 'gateway'): readonly LoadResult[] {
  return isCleanComparison(row) ? row[side].filter(isClean) : row[side];
}

/** The run with the median throughput (the lower middle one for an even count). */
export function medianRun(results: readonly LoadResult[]): LoadResult {
  const sorted = [...results].sort((a, b) => a.opsPerSec - b.opsPerSec);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (median === undefined) throw new RangeError('no runs to summarise');
  return median;
}

/** Gateway median throughput over baseline median throughput, over the runs `summarisedRuns` picks. */
export function ratio(row: ComparisonRow): number {
  const baseline = medianRun(summarisedRuns(row, 'baseline')).opsPerSec;
  return baseline === 0 ? 0 : medianRun(summarisedRuns(row, 'gateway')).opsPerSec / baseline;
}

/**
 * Baseline CPU per request over gateway CPU per request (medians of all runs): what the throughput ratio would
 * be if both servers were CPU-bound on a core of their own. It barely moves when other processes compete for
 * the machine, so it is the figure to trust when few runs are clean.
 */
export function cpuRatio(row: ComparisonRow): number {
  return medianOf(row.baseline, cpuPerOp) / medianOf(row.gateway, cpuPerOp);
}

/** Share of the bare server's throughput the gateway is meant to keep (the target). */
export const TARGET_RATIO = 0.7;

/**
 * Latency the gateway adds at a percentile: its median run's value minus the baseline median run's (over
 * the runs `summarisedRuns` picks). Percentiles do not subtract exactly, but at the same load and percentile
 * this is the extra time a request of that rank spends.
 */
export function addedLatencyMs(row: ComparisonRow, pick: (latency: LatencySummary) => number): number {
  return (
    pick(medianRun(summarisedRuns(row, 'gateway')).latencyMs) -
    pick(medianRun(summarisedRuns(row, 'baseline')).latencyMs)
  );
}

/** Gateway median throughput over the proxy's (all runs), as in formatProxyComparison; NaN without a proxy. */
export function proxyRatio(row: ComparisonRow): number {
  if (row.proxy === undefined || row.proxy.length === 0) return Number.NaN;
  const proxy = medianRun(row.proxy).opsPerSec;
  return proxy === 0 ? 0 : medianRun(row.gateway).opsPerSec / proxy;
}

/** Server-thread CPU per request the gateway adds over the baseline, in µs (medians of all runs). */
export function addedCpuUsPerOp(row: ComparisonRow): number {
  return medianOf(row.gateway, cpuPerOp) - medianOf(row.baseline, cpuPerOp);
}

/** The row's target in words and whether it was met (every bound it sets; an unmeasured bound is not met). */
export function targetOf(row: ComparisonRow): { text: string; isMet: boolean } {
  const { minRatio, minProxyRatio, maxAddedP50Ms, maxAddedCpuUsPerOp } = row.target ?? { minRatio: TARGET_RATIO };
  const parts: string[] = [];
  let isMet = true;
  if (minRatio !== undefined) {
    parts.push(`>= ${minRatio.toFixed(2)}`);
    isMet &&= ratio(row) >= minRatio;
  }
  if (minProxyRatio !== undefined) {
    // The value too: the ratio column is against the baseline, and this one is only in the proxy table.
    parts.push(
      `gw/proxy >= ${minProxyRatio.toFixed(2)} (${Number.isNaN(proxyRatio(row)) ? 'n/a' : proxyRatio(row).toFixed(2)})`,
    );
    isMet &&= proxyRatio(row) >= minProxyRatio;
  }
  if (maxAddedP50Ms !== undefined) {
    parts.push(`+p50 <= ${maxAddedP50Ms} ms`);
    isMet &&= addedLatencyMs(row, (latency) => latency.p50) <= maxAddedP50Ms;
  }
  if (maxAddedCpuUsPerOp !== undefined) {
    parts.push(`+CPU <= ${maxAddedCpuUsPerOp} us`);
    isMet &&= addedCpuUsPerOp(row) <= maxAddedCpuUsPerOp;
  }
  // A row measured for the record only (`target: {}`): nothing to meet.
  return parts.length === 0 ? { text: 'none', isMet: true } : { text: parts.join(', '), isMet };
}

function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function formatMs(value: number): string {
  return Math.abs(value) < 10 ? value.toFixed(2) : value.toFixed(1);
}

function formatAddedMs(value: number): string {
  return `${value < 0 ? '' : '+'}${formatMs(value)}`;
}

function formatShare(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${Math.round(value * 100)}%`;
}

function formatMicros(value: number): string {
  return Number.isNaN(value) ? 'n/a' : value.toFixed(1);
}

function formatAddedMicros(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${value < 0 ? '' : '+'}${value.toFixed(1)}`;
}

const cpuPerOp = (result: LoadResult) => result.serverCpuUsPerOp;

/** Median of `pick` over every run, clean or not: CPU per request hardly depends on contention. */
function medianOf(results: readonly LoadResult[], pick: (result: LoadResult) => number): number {
  const values = results
    .map(pick)
    .filter((value) => !Number.isNaN(value))
    .sort((a, b) => a - b);
  return values.length === 0 ? Number.NaN : (values[Math.floor((values.length - 1) / 2)] ?? Number.NaN);
}

function formatRange(results: readonly LoadResult[]): string {
  const rates = results.map((result) => result.opsPerSec);
  return `${formatRate(Math.min(...rates))}-${formatRate(Math.max(...rates))}`;
}

/**
 * The gateway against the stateless proxy (rows that measured one): median throughput of each (all runs),
 * gateway over proxy, the proxy's CPU per request and proxy CPU over gateway CPU, latency the gateway adds
 * over the proxy at p50.
 */
export function formatProxyComparison(rows: readonly ComparisonRow[]): string {
  const header = [
    'surface',
    'proxy ops/s',
    'gateway ops/s',
    'gateway/proxy',
    'CPU us/op proxy/gateway',
    'cpu ratio proxy/gateway',
    'p50 ms proxy/gateway',
    'added p50 ms vs proxy',
  ];
  const body = rows.flatMap((row) => {
    if (row.proxy === undefined || row.proxy.length === 0) return [];
    const proxy = medianRun(row.proxy);
    const gateway = medianRun(row.gateway);
    const proxyCpu = medianOf(row.proxy, cpuPerOp);
    const gatewayCpu = medianOf(row.gateway, cpuPerOp);
    return [
      [
        row.surface,
        formatRate(proxy.opsPerSec),
        formatRate(gateway.opsPerSec),
        (proxy.opsPerSec === 0 ? 0 : gateway.opsPerSec / proxy.opsPerSec).toFixed(3),
        `${formatMicros(proxyCpu)} / ${formatMicros(gatewayCpu)}`,
        (proxyCpu / gatewayCpu).toFixed(3),
        `${formatMs(proxy.latencyMs.p50)} / ${formatMs(gateway.latencyMs.p50)}`,
        formatAddedMs(gateway.latencyMs.p50 - proxy.latencyMs.p50),
      ],
    ];
  });
  return formatTable(header, body);
}

/** Renders rows as an aligned plain-text table (also valid Markdown). */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/**
 * The comparison table every benchmark prints: median throughput of each side (clean runs only when both
 * sides have some, see `summarisedRuns`), their ratio, the row's target and whether it was met, the spread
 * over all rounds, latency and busy shares of the median runs, the latency the gateway adds at p50 and p99,
 * the server thread's CPU per request (median of all runs) and what the gateway adds to it, and how many
 * runs were clean.
 */
export function formatComparison(rows: readonly ComparisonRow[]): string {
  const header = [
    'surface',
    'conns x depth',
    'baseline ops/s',
    'gateway ops/s',
    'ratio',
    'target',
    'met',
    'cpu ratio',
    'baseline range',
    'gateway range',
    'p50/p99 ms b',
    'p50/p99 ms g',
    'added p50/p99 ms',
    'server CPU us/op b/g',
    'added CPU us/op',
    'server busy b/g',
    'loadgen busy b/g',
    'clean runs b/g',
    'errors',
  ];
  const body = rows.map((row) => {
    const value = ratio(row);
    const target = targetOf(row);
    const baseline = medianRun(summarisedRuns(row, 'baseline'));
    const gateway = medianRun(summarisedRuns(row, 'gateway'));
    const all = [...row.baseline, ...row.gateway];
    const clean = (results: readonly LoadResult[]) => results.filter(isClean).length;
    return [
      row.surface,
      `${row.connections} x ${row.depth}`,
      formatRate(baseline.opsPerSec),
      formatRate(gateway.opsPerSec),
      // An asterisk: no clean run on one side, so both medians include runs that shared the machine.
      `${value.toFixed(2)}${isCleanComparison(row) ? '' : '*'}`,
      target.text,
      target.text === 'none' ? '-' : target.isMet ? 'yes' : 'no',
      Number.isNaN(cpuRatio(row)) ? 'n/a' : cpuRatio(row).toFixed(2),
      formatRange(row.baseline),
      formatRange(row.gateway),
      `${formatMs(baseline.latencyMs.p50)} / ${formatMs(baseline.latencyMs.p99)}`,
      `${formatMs(gateway.latencyMs.p50)} / ${formatMs(gateway.latencyMs.p99)}`,
      `${formatAddedMs(addedLatencyMs(row, (latency) => latency.p50))} / ${formatAddedMs(addedLatencyMs(row, (latency) => latency.p99))}`,
      `${formatMicros(medianOf(row.baseline, cpuPerOp))} / ${formatMicros(medianOf(row.gateway, cpuPerOp))}`,
      formatAddedMicros(addedCpuUsPerOp(row)),
      `${formatShare(baseline.serverBusy)} / ${formatShare(gateway.serverBusy)}`,
      `${formatShare(baseline.loadgenBusy)} / ${formatShare(gateway.loadgenBusy)}`,
      `${clean(row.baseline)}/${row.baseline.length} / ${clean(row.gateway)}/${row.gateway.length}`,
      String(all.reduce((sum, result) => sum + result.errors, 0)),
    ];
  });
  return formatTable(header, body);
}

/** One-line summary of a single load run, printed as each run finishes. */
export function formatRun(label: string, result: LoadResult): string {
  const { p50, p99 } = result.latencyMs;
  return (
    `  ${label.padEnd(30)} ${formatRate(result.opsPerSec).padStart(9)} ops/s  ` +
    `p50 ${formatMs(p50)} ms  p99 ${formatMs(p99)} ms  server ${formatShare(result.serverBusy)} ` +
    `${formatMicros(result.serverCpuUsPerOp)} us/op  ` +
    `loadgen ${formatShare(result.loadgenBusy)}  other procs ${formatShare(result.otherCpu)}  errors ${result.errors}`
  );
}
