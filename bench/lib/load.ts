// Runs a load generator in its own worker thread, so it does not share the event loop of the server under test.
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { HttpLoadTarget } from './http-load.js';
import { MAX_WARMUP_MS, type LoadTotals, type LoadWindow } from './load-run.js';
import { cpuSnapshot, mainThreadCpuUsPerOp, otherProcessesShare } from './machine-load.js';
import type { LoadResult } from './measure.js';
import { processTreesCpuSec } from './process-cpu.js';
import type { WsLoadTarget } from './ws-load.js';

export type LoadSpec = LoadWindow & (({ kind: 'http' } & HttpLoadTarget) | ({ kind: 'ws' } & WsLoadTarget));

/** What the worker posts back: the start of the measurement window, each segment's totals, then the last totals, or a failure. */
export type LoadWorkerMessage =
  | { type: 'measuring' }
  | { type: 'segment'; totals: LoadTotals }
  | { type: 'result'; totals: LoadTotals; sampleBody: string }
  | { type: 'failed'; message: string };

/** Time allowed beyond warm-up and duration for connecting and closing before the worker is killed. */
const SETUP_BUDGET_MS = 15_000;

const WORKER_ENTRY = new URL(`./load-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

// Under tsx a worker does not inherit the TypeScript loader, so the entry registers it before importing.
const WORKER_BOOT = WORKER_ENTRY.endsWith('.ts')
  ? `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_ENTRY)}); });`
  : `import(${JSON.stringify(WORKER_ENTRY)});`;

function isWorkerMessage(value: unknown): value is LoadWorkerMessage {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string';
}

/**
 * Drives the server listening in this thread with `spec` from a worker thread. The server's event-loop
 * utilisation and the CPU used by other processes are sampled here over the worker's measurement window. Resolves once the worker has closed its
 * connections and exited, so the next run starts from a quiet server.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const results = await runLoadSegments(spec);
  const last = results.at(-1);
  if (last === undefined) throw new Error('load worker reported no result');
  return last;
}

/**
 * As runLoad, with one result per measured segment (`spec.segments`; one segment when absent).
 * `onSegment` sees each as it ends (its `sampleBody` is filled in only in the resolved list); `onMeasuring` is
 * told when the measurement window opens (after the warm-up).
 */
export function runLoadSegments(
  spec: LoadSpec,
  onSegment: (result: LoadResult, index: number) => void = () => undefined,
  onMeasuring: () => void = () => undefined,
): Promise<LoadResult[]> {
  return new Promise<LoadResult[]>((resolve, reject) => {
    const worker = new Worker(WORKER_BOOT, { eval: true, workerData: spec });
    let serverEluAtStart = performance.eventLoopUtilization();
    let cpuAtStart = cpuSnapshot();
    const results: LoadResult[] = [];
    let isFinished = false;
    let failure: Error | undefined;
    const warmupBoundMs = (spec.warmupRequests ?? 0) > 0 ? Math.max(spec.warmupMs, MAX_WARMUP_MS) : spec.warmupMs;
    const budgetMs = warmupBoundMs + spec.durationMs + SETUP_BUDGET_MS;

    const deadline = setTimeout(() => {
      failure ??= new Error(`load worker did not finish within ${budgetMs} ms`);
      void worker.terminate();
    }, budgetMs);

    /** The server-side figures of the window that ends now; the next window starts here. */
    const closeWindow = (totals: LoadTotals, sampleBody: string): LoadResult => {
      const serverBusy = performance.eventLoopUtilization(serverEluAtStart).utilization;
      const cpuAtEnd = cpuSnapshot();
      const result: LoadResult = {
        ops: totals.ops,
        errors: totals.errors,
        warmupOps: totals.warmupOps,
        elapsedMs: totals.elapsedMs,
        opsPerSec: totals.elapsedMs > 0 ? (totals.ops * 1000) / totals.elapsedMs : 0,
        latencyMs: totals.latencyMs,
        loadgenBusy: totals.loadgenBusy,
        serverBusy,
        serverCpuUsPerOp: mainThreadCpuUsPerOp(cpuAtStart, cpuAtEnd, totals.ops + totals.errors),
        otherCpu: otherProcessesShare(cpuAtStart, cpuAtEnd),
        sampleBody,
      };
      serverEluAtStart = performance.eventLoopUtilization();
      cpuAtStart = cpuAtEnd;
      return result;
    };

    const addResult = (result: LoadResult) => {
      results.push(result);
      onSegment(result, results.length - 1);
    };

    worker.on('message', (message: unknown) => {
      if (!isWorkerMessage(message)) return;
      if (message.type === 'measuring') {
        serverEluAtStart = performance.eventLoopUtilization();
        cpuAtStart = cpuSnapshot();
        onMeasuring();
      } else if (message.type === 'segment') {
        addResult(closeWindow(message.totals, ''));
      } else if (message.type === 'result') {
        addResult(closeWindow(message.totals, message.sampleBody));
        for (const result of results) result.sampleBody = message.sampleBody;
        isFinished = true;
      } else {
        failure ??= new Error(`load worker failed: ${message.message}`);
      }
    });
    worker.on('error', (error) => {
      failure ??= error;
    });
    worker.on('exit', () => {
      clearTimeout(deadline);
      if (failure !== undefined) reject(failure);
      else if (!isFinished) reject(new Error('load worker exited without a result'));
      else resolve(results);
    });
  });
}

/**
 * As runLoad, for a server that runs as its own process(es): the result's server figures are those process trees'
 * (every thread, from /proc) over the measurement window instead of this thread's: CPU per request, and busy as
 * their CPU share of one core. `otherCpu` leaves them out, since they are the server under test, not other load.
 */
export async function runLoadOnProcesses(spec: LoadSpec, pids: readonly number[]): Promise<LoadResult> {
  const groups = { server: pids };
  let cpuAtStart = Number.NaN;
  let cpuAtEnd = Number.NaN;
  const results = await runLoadSegments(
    spec,
    () => {
      cpuAtEnd = processTreesCpuSec(groups).server ?? Number.NaN;
    },
    () => {
      cpuAtStart = processTreesCpuSec(groups).server ?? Number.NaN;
    },
  );
  const result = results.at(-1);
  if (result === undefined) throw new Error('load worker reported no result');
  const serverCpuSec = cpuAtEnd - cpuAtStart;
  const elapsedSec = result.elapsedMs / 1000;
  const requests = result.ops + result.errors;
  return {
    ...result,
    otherCpu: Math.max(0, result.otherCpu - serverCpuSec / (elapsedSec * cpus().length)),
    serverCpuUsPerOp: requests === 0 ? Number.NaN : (serverCpuSec * 1e6) / requests,
    serverBusy: serverCpuSec / elapsedSec,
  };
}
