// 512 concurrent streamed completions of 64 deltas at 20 ms each (issue 33): no stall beyond the upstream's own, memory bounded, /health still quick.
import { isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { BENCH_AGENT, BENCH_MODEL } from './lib/fake-llm.js';
import type { FigureRow } from './lib/figures.js';
import { newBenchToken, startGatewayProcess } from './lib/gateway-process.js';
import type { HttpRequestSpec } from './lib/http-load.js';
import { waitForQuietMachine } from './lib/machine-load.js';
import { processTreesCpuSec } from './lib/process-cpu.js';
import { peakResidentMb, runStreamLoad, type StreamLoadSpec, type StreamWaveResult } from './lib/stream-load.js';
import { startFakeLlm, type FakeLlm } from '../test/support/fake-llm-server.js';

const STREAMS = 512;
const DELTAS = 64;
const DELTA_INTERVAL_MS = 20;
/** The issue's stall: a gap over 100 ms beyond the upstream's own 20 ms. */
const STALL_MS = DELTA_INTERVAL_MS + 100;
const HEALTH_MAX_MS = 50;
/** The gateway's peak resident memory over the run, startup included: 512 open turns must not cost more. */
const PEAK_RSS_MAX_MB = 400;
/** A warm-up wave (compiles the stream path, grows the pools), then the measured one. */
const WAVES = 2;
const HEALTH_INTERVAL_MS = 20;
/** Far past the 1.3 s a stream takes; a stream still open then is a failure. */
const STREAM_TIMEOUT_MS = 60_000;

/** Eight characters a delta, so each stream carries the same small frames at either end. */
const ANSWER = 'abcdefg '.repeat(DELTAS);

/** The upstream: every chat request gets the same answer in 64 deltas, one every 20 ms, from this thread. */
function startPacedLlm(): Promise<FakeLlm> {
  return startFakeLlm({
    models: [BENCH_MODEL],
    maxRecordedRequests: 8,
    defaultReply: () => ({ text: ANSWER, chunks: DELTAS, chunkDelayMs: DELTA_INTERVAL_MS }),
  });
}

function streamRequest(model: string, token: string): HttpRequestSpec {
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Stream me the answer' }] }),
  };
}

function loadSpec(port: number, request: HttpRequestSpec, healthPath?: string): StreamLoadSpec {
  return {
    host: '127.0.0.1',
    port,
    request,
    streams: STREAMS,
    waves: WAVES,
    expectedDeltas: DELTAS,
    stallMs: STALL_MS,
    ...(healthPath === undefined ? {} : { healthPath }),
    healthIntervalMs: HEALTH_INTERVAL_MS,
    streamTimeoutMs: STREAM_TIMEOUT_MS,
  };
}

interface SideRun {
  wave: StreamWaveResult;
  peakRssMb: number;
  /** The gateway process's CPU (every thread) over both waves, per delta delivered: what the stream path costs. */
  cpuUsPerDelta: number;
}

function lastWave(results: readonly StreamWaveResult[]): StreamWaveResult {
  const wave = results.at(-1);
  if (wave === undefined) throw new Error('the stream load reported no wave');
  return wave;
}

function formatWave(label: string, { wave, peakRssMb, cpuUsPerDelta }: SideRun): string {
  const fixed = (value: number) => (Number.isNaN(value) ? 'n/a' : value.toFixed(1));
  return (
    `  ${label}: ${wave.completed}/${wave.streams} complete (${wave.peakLive} at once) in ${fixed(wave.elapsedMs)} ms, gaps ${wave.gaps}: ` +
    `p50 ${fixed(wave.p50GapMs)} p99 ${fixed(wave.p99GapMs)} worst ${fixed(wave.worstGapMs)} ms, ` +
    `${wave.gapsOver} over ${STALL_MS} ms; /health ${wave.healthSamples} samples p50 ${fixed(wave.healthP50Ms)} ` +
    `max ${fixed(wave.healthMaxMs)} ms; peak RSS ${fixed(peakRssMb)} MB; CPU ${fixed(cpuUsPerDelta)} us per delta`
  );
}

async function runDirect(): Promise<SideRun> {
  const llm = await startPacedLlm();
  try {
    const { port } = new URL(llm.url);
    const waves = await runStreamLoad(loadSpec(Number(port), streamRequest(BENCH_MODEL, 'unused')));
    return { wave: lastWave(waves), peakRssMb: Number.NaN, cpuUsPerDelta: Number.NaN };
  } finally {
    await llm.close();
  }
}

async function runGateway(): Promise<SideRun> {
  const llm = await startPacedLlm();
  try {
    const token = newBenchToken();
    const gateway = await startGatewayProcess({ llmBaseUrl: llm.baseUrl, token });
    try {
      const cpuSec = () => processTreesCpuSec({ gateway: [gateway.pid] }).gateway ?? Number.NaN;
      const cpuAtStart = cpuSec();
      const waves = await runStreamLoad(loadSpec(gateway.port, streamRequest(BENCH_AGENT, token), '/health'));
      const deltas = WAVES * STREAMS * DELTAS;
      return {
        wave: lastWave(waves),
        peakRssMb: await peakResidentMb(gateway.pid),
        cpuUsPerDelta: ((cpuSec() - cpuAtStart) * 1e6) / deltas,
      };
    } finally {
      await gateway.close();
    }
  } finally {
    await llm.close();
  }
}

function figure(surface: string, unit: string, maxGateway: number, pick: (run: SideRun) => number) {
  return (direct: readonly SideRun[], gateway: readonly SideRun[]): FigureRow => ({
    kind: 'figure',
    surface,
    unit,
    baseline: direct.map(pick),
    gateway: gateway.map(pick),
    maxGateway,
  });
}

const FIGURES = [
  figure(`streams c=${STREAMS} worst inter-delta gap`, 'ms', STALL_MS, (run) => run.wave.worstGapMs),
  figure(`streams c=${STREAMS} p99 inter-delta gap`, 'ms', STALL_MS, (run) => run.wave.p99GapMs),
  figure(`streams c=${STREAMS} gaps over ${STALL_MS} ms`, 'gaps', 0, (run) => run.wave.gapsOver),
  figure(`streams c=${STREAMS} streams failed`, 'streams', 0, (run) => run.wave.failed),
  figure(`streams c=${STREAMS} gateway peak RSS`, 'MB', PEAK_RSS_MAX_MB, (run) => run.peakRssMb),
  figure(`streams c=${STREAMS} /health p50 during`, 'ms', HEALTH_MAX_MS, (run) => run.wave.healthP50Ms),
  figure(`streams c=${STREAMS} /health max during`, 'ms', HEALTH_MAX_MS, (run) => run.wave.healthMaxMs),
];

export async function run(options: BenchOptions): Promise<FigureRow[]> {
  const surface = `streams c=${STREAMS}`;
  if (!wantsSurface(options, surface)) return [];
  options.log(
    `${surface}: ${STREAMS} concurrent streamed completions of ${DELTAS} deltas every ${DELTA_INTERVAL_MS} ms, ` +
      `${WAVES - 1} warm-up wave then one measured, gateway process vs the upstream direct; ${options.rounds} rounds`,
  );
  const direct: SideRun[] = [];
  const gateway: SideRun[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    const sides = round % 2 === 1 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const);
    for (const side of sides) {
      const quiet = await waitForQuietMachine({ maxWaitMs: 10_000 });
      const note = quiet.isQuiet ? '' : `  (other processes use ${Math.round(quiet.lastShare * 100)}% of the machine)`;
      const result = side === 'direct' ? await runDirect() : await runGateway();
      (side === 'direct' ? direct : gateway).push(result);
      options.log(`${formatWave(`#${round} ${side}`, result)}${note}`);
      if (result.wave.completed === 0) throw new Error(`${surface} ${side}: no stream completed`);
    }
  }
  return FIGURES.map((make) => make(direct, gateway));
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
