// Waves of concurrent streamed requests from a worker thread, timing every delta at the client, with /health sampled beside them.
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { HttpRequestSpec } from './http-load.js';

export interface StreamLoadSpec {
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
  healthSamples: number;
  healthP50Ms: number;
  healthMaxMs: number;
}

export type StreamWorkerMessage =
  { type: 'wave'; index: number; result: StreamWaveResult } | { type: 'done' } | { type: 'failed'; message: string };

const WORKER_ENTRY = new URL(`./stream-load-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url)
  .href;
// Under tsx a worker does not inherit the TypeScript loader, so the entry registers it before importing.
const WORKER_BOOT = WORKER_ENTRY.endsWith('.ts')
  ? `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_ENTRY)}); });`
  : `import(${JSON.stringify(WORKER_ENTRY)});`;

function isWorkerMessage(value: unknown): value is StreamWorkerMessage {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string';
}

/** Runs every wave of `spec` from a worker thread; resolves with one result per wave once the worker has exited. */
export function runStreamLoad(spec: StreamLoadSpec): Promise<StreamWaveResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_BOOT, { eval: true, workerData: spec });
    const results: StreamWaveResult[] = [];
    let failure: Error | undefined;
    let isDone = false;
    const budgetMs = spec.waves * (spec.streamTimeoutMs + 15_000);
    const deadline = setTimeout(() => {
      failure ??= new Error(`stream load did not finish within ${budgetMs} ms`);
      void worker.terminate();
    }, budgetMs);
    worker.on('message', (message: unknown) => {
      if (!isWorkerMessage(message)) return;
      if (message.type === 'wave') results.push(message.result);
      else if (message.type === 'done') isDone = true;
      else failure ??= new Error(`stream load failed: ${message.message}`);
    });
    worker.on('error', (error) => {
      failure ??= error;
    });
    worker.on('exit', () => {
      clearTimeout(deadline);
      if (failure !== undefined) reject(failure);
      else if (!isDone) reject(new Error('stream load worker exited without a result'));
      else resolve(results);
    });
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
