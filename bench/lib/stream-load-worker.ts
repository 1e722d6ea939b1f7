// The worker-thread side of runStreamLoad (started through load-worker.ts): waves of concurrent SSE streams over raw sockets, each delta timed on arrival; or, in a worker of its own, /health sampled beside them.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { encodeRequest } from './http-load.js';
import { percentile } from './measure.js';
import type { HealthSample, StreamLoadSpec, StreamWaveResult, StreamWorkerMessage } from './stream-load.js';

/** A content delta as both the OpenAI wire and the gateway's /v1 write it; the role chunk's empty content is not one. */
const DELTA_MARK = /"content":"(?!")/g;
const DONE_MARK = 'data: [DONE]';
/** Connections opened at once before a wave starts. */
const CONNECT_BATCH = 64;

interface StreamOutcome {
  isComplete: boolean;
  /** Arrival times of the content deltas, ms. */
  arrivals: number[];
}

/** Opens `count` connections, `CONNECT_BATCH` at a time so the listen backlog never overflows. */
async function connectAll(spec: StreamLoadSpec, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  while (sockets.length < count) {
    const batch = Math.min(CONNECT_BATCH, count - sockets.length);
    const opened = await Promise.all(
      Array.from(
        { length: batch },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect({ host: spec.host, port: spec.port }, () => resolve(socket));
            socket.setNoDelay(true);
            socket.once('error', reject);
          }),
      ),
    );
    sockets.push(...opened);
  }
  return sockets;
}

/** Live streams now and the most seen at once: proof that the wave's streams overlapped. */
const live = { now: 0, peak: 0 };

/** One streamed request on a connected socket (`Connection: close`), read to the end. */
function runStream(spec: StreamLoadSpec, socket: Socket, request: Buffer): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const arrivals: number[] = [];
    let text = '';
    let scanFrom = 0;
    let isDone = false;
    live.now += 1;
    live.peak = Math.max(live.peak, live.now);
    const timer = setTimeout(() => socket.destroy(), spec.streamTimeoutMs);
    socket.on('data', (chunk: Buffer) => {
      const now = performance.now();
      text += chunk.toString('latin1');
      DELTA_MARK.lastIndex = Math.max(0, scanFrom);
      while (DELTA_MARK.exec(text) !== null) arrivals.push(now);
      // A mark cut by a read boundary is found on the next read: rescan the last few characters.
      scanFrom = text.length - 12;
      if (!isDone && text.includes(DONE_MARK, Math.max(0, text.length - chunk.length - DONE_MARK.length))) {
        isDone = true;
        live.now -= 1;
        // The stream is whole; a server may still hold the connection open (the fake LLM does), so do not wait.
        socket.destroy();
        return;
      }
      // Only the tail is needed for the next scan; the head would grow to the whole stream.
      if (text.length > 4096) {
        scanFrom -= text.length - 64;
        text = text.slice(-64);
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (!isDone) live.now -= 1;
      resolve({ isComplete: isDone && arrivals.length === spec.expectedDeltas, arrivals });
    });
    socket.on('error', () => undefined);
    socket.write(request);
  });
}

/** Wall-clock ms, comparable across threads (a wave's window, a health sample's time). */
const epochNow = (): number => performance.timeOrigin + performance.now();

/**
 * GET `healthPath` on one keep-alive socket, one at a time every `healthIntervalMs`, until `isStopped()`: each
 * sample's wall-clock time and latency in ms. Runs in a worker of its own, so the streams' reads never delay it.
 */
async function sampleHealth(spec: StreamLoadSpec, isStopped: () => boolean): Promise<HealthSample[]> {
  const path = spec.healthPath;
  if (path === undefined) return [];
  const request = encodeRequest(spec.host, spec.port, { method: 'GET', path });
  const socket = connect({ host: spec.host, port: spec.port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const samples: HealthSample[] = [];
  try {
    while (!isStopped()) {
      const startedAt = performance.now();
      const answered = new Promise<void>((resolve) => {
        let seen = '';
        const onData = (chunk: Buffer) => {
          seen += chunk.toString('latin1');
          // /health answers a small JSON body with Content-Length; its closing brace ends it.
          if (seen.endsWith('}')) {
            socket.off('data', onData);
            resolve();
          }
        };
        socket.on('data', onData);
      });
      socket.write(request);
      await answered;
      samples.push({ atMs: epochNow(), latencyMs: performance.now() - startedAt });
      await new Promise((resolve) => setTimeout(resolve, spec.healthIntervalMs));
    }
  } finally {
    socket.destroy();
  }
  return samples;
}

async function runWave(spec: StreamLoadSpec, request: Buffer): Promise<StreamWaveResult> {
  const sockets = await connectAll(spec, spec.streams);
  live.peak = 0;
  const startedAtMs = epochNow();
  const startedAt = performance.now();
  const outcomes = await Promise.all(sockets.map((socket) => runStream(spec, socket, request)));
  const elapsedMs = performance.now() - startedAt;
  const gaps: number[] = [];
  for (const { arrivals } of outcomes) {
    let previous: number | undefined;
    for (const arrival of arrivals) {
      if (previous !== undefined) gaps.push(arrival - previous);
      previous = arrival;
    }
  }
  gaps.sort((a, b) => a - b);
  const completed = outcomes.filter((outcome) => outcome.isComplete).length;
  return {
    streams: spec.streams,
    peakLive: live.peak,
    completed,
    failed: spec.streams - completed,
    elapsedMs,
    gaps: gaps.length,
    worstGapMs: gaps.at(-1) ?? Number.NaN,
    p99GapMs: percentile(gaps, 0.99),
    p50GapMs: percentile(gaps, 0.5),
    gapsOver: gaps.filter((gap) => gap > spec.stallMs).length,
    startedAtMs,
    endedAtMs: startedAtMs + elapsedMs,
    healthSamples: 0,
    healthP50Ms: Number.NaN,
    healthMaxMs: Number.NaN,
  };
}

/** The health role: samples until the parent says `stop`, then posts every sample. */
async function mainHealth(spec: StreamLoadSpec): Promise<void> {
  let isStopped = false;
  parentPort?.once('message', () => {
    isStopped = true;
  });
  const samples = await sampleHealth(spec, () => isStopped);
  parentPort?.postMessage({ type: 'health', samples } satisfies StreamWorkerMessage);
}

async function main(spec: StreamLoadSpec): Promise<void> {
  if (spec.role === 'health') {
    await mainHealth(spec);
    return;
  }
  const request = encodeRequest(spec.host, spec.port, spec.request)
    .toString('latin1')
    .replace('Connection: keep-alive', 'Connection: close');
  const bytes = Buffer.from(request, 'latin1');
  for (let wave = 0; wave < spec.waves; wave += 1) {
    const result = await runWave(spec, bytes);
    const message: StreamWorkerMessage = { type: 'wave', index: wave, result };
    parentPort?.postMessage(message);
  }
  parentPort?.postMessage({ type: 'done' } satisfies StreamWorkerMessage);
}

/** True for a stream load spec (runStreamLoad), as opposed to a request load spec (runLoad). */
export function isStreamLoadSpec(value: unknown): value is StreamLoadSpec {
  return typeof value === 'object' && value !== null && 'streams' in value && 'waves' in value && 'request' in value;
}

/** The worker's body for a stream load spec; a failure is posted to the parent, never thrown. */
export async function runStreamWorker(spec: StreamLoadSpec): Promise<void> {
  try {
    await main(spec);
  } catch (error) {
    const message: StreamWorkerMessage = {
      type: 'failed',
      message: error instanceof Error ? error.message : String(error),
    };
    parentPort?.postMessage(message);
  }
}
