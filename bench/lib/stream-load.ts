// Waves of concurrent streamed requests from a worker thread, timing every delta at the client, with /health sampled beside them.
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { HttpRequestSpec } from './http-load.js';
import { percentile } from './measure.js';

export interface StreamLoadSpec {
  /** What the worker does: run the streams (default) or sample `healthPath` until stopped. */
  role?: 'streams' | 'health';
  host: string;
  port: number;
  request: HttpRequestSpec;
  /** Streams open at once in each wave, each on its own connection. */
  streams: number;
  /** Waves one after the other; all but the last warm up. */
  waves: number;
  /** Content deltas a complete stream carries. */
  expectedDeltas: number;
  /** A gap between two deltas of one stream longer than this (ms) counts as a stall. */
  stallMs: number;
  /** Sampled once every `healthIntervalMs` during each wave; none when absent. */
  healthPath?: string;
  healthIntervalMs: number;
  /** A stream still open after this long is cut (and counts as failed). */
  streamTimeoutMs: number;
}

export interface StreamWaveResult {
  streams: number;
  /** The most streams open at once (request sent, `[DONE]` not yet read). */
  peakLive: number;
  completed: number;
  failed: number;
  elapsedMs: number;
  /** Inter-delta gaps measured (deltas − 1 per stream). */
  gaps: number;
  worstGapMs: number;
  p99GapMs: number;
  p50GapMs: number;
  /** Gaps longer than `stallMs`. */
  gapsOver: number;
  /** The wave's window in wall-clock ms: the health samples inside it are the wave's. */
  startedAtMs: number;
  endedAtMs: number;
  healthSamples: number;
  healthP50Ms: number;
  healthMaxMs: number;
}

export interface HealthSample {
  /** Wall-clock ms when the answer was read. */
  atMs: number;
  latencyMs: number;
}

export type StreamWorkerMessage =
  | { type: 'wave'; index: number; result: StreamWaveResult }
  | { type: 'health'; samples: HealthSample[] }
  | { type: 'done' }
  | { type: 'failed'; message: string };

const WORKER_ENTRY = new URL(`./load-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
// Under tsx a worker does not inherit the TypeScript loader, so the entry registers it before importing.
const WORKER_BOOT = WORKER_ENTRY.endsWith('.ts')
  ? `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_ENTRY)}); });`
  : `import(${JSON.stringify(WORKER_ENTRY)});`;

function isWorkerMessage(value: unknown): value is StreamWorkerMessage {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string';
}

/** Runs one worker of `spec`'s role; `onStarted` gets it (to stop the health role). Resolves with what it posted. */
function runWorker(
  spec: StreamLoadSpec,
  budgetMs: number,
  onStarted: (worker: Worker) => void = () => undefined,
): Promise<{ waves: StreamWaveResult[]; health: HealthSample[] }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_BOOT, { eval: true, workerData: spec });
    const waves: StreamWaveResult[] = [];
    let health: HealthSample[] = [];
    let failure: Error | undefined;
    let isDone = false;
    const deadline = setTimeout(() => {
      failure ??= new Error(`stream load did not finish within ${budgetMs} ms`);
      void worker.terminate();
    }, budgetMs);
    worker.on('message', (message: unknown) => {
      if (!isWorkerMessage(message)) return;
      if (message.type === 'wave') waves.push(message.result);
      else if (message.type === 'health') {
        health = message.samples;
        isDone = true;
      } else if (message.type === 'done') isDone = true;
      else failure ??= new Error(`stream load failed: ${message.message}`);
    });
    worker.on('error', (error) => {
      failure ??= error;
    });
    worker.on('exit', () => {
      clearTimeout(deadline);
      if (failure !== undefined) reject(failure);
      else if (!isDone) reject(new Error('stream load worker exited without a result'));
      else resolve({ waves, health });
    });
    onStarted(worker);
  });
}

/**
 * Runs every wave of `spec` from a worker thread, and with `healthPath` samples it from a second worker meanwhile;
 * resolves with one result per wave (its health figures from the samples inside its window) once both have exited.
 */
export async function runStreamLoad(spec: StreamLoadSpec): Promise<StreamWaveResult[]> {
  const budgetMs = spec.waves * (spec.streamTimeoutMs + 15_000);
  let healthWorker: Worker | undefined;
  const health =
    spec.healthPath === undefined
      ? Promise.resolve({ waves: [], health: [] })
      : runWorker({ ...spec, role: 'health' }, budgetMs + 15_000, (worker) => (healthWorker = worker));
  let waves: StreamWaveResult[];
  try {
    ({ waves } = await runWorker({ ...spec, role: 'streams' }, budgetMs));
  } finally {
    healthWorker?.postMessage('stop');
  }
  const samples = (await health).health;
  return waves.map((wave) => {
    const inside = samples
      .filter((sample) => sample.atMs >= wave.startedAtMs && sample.atMs <= wave.endedAtMs)
      .map((sample) => sample.latencyMs)
      .sort((a, b) => a - b);
    return {
      ...wave,
      healthSamples: inside.length,
      healthP50Ms: percentile(inside, 0.5),
      healthMaxMs: inside.at(-1) ?? Number.NaN,
    };
  });
}

/** Peak resident memory of a process so far (`VmHWM` of /proc/<pid>/status, Linux), MB of 10^6 bytes; NaN elsewhere. */
export async function peakResidentMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'latin1');
    const kib = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kib === undefined ? Number.NaN : (Number(kib) * 1024) / 1e6;
  } catch {
    return Number.NaN;
  }
}
