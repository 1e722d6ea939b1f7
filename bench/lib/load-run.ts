// The clock of one load run: warm-up, then a measurement window bounded in time and in request count.
import { performance } from 'node:perf_hooks';
import { LatencyRecorder, type LatencySummary } from './measure.js';

export type LoadPhase = 'idle' | 'warmup' | 'measure' | 'done';

/** How long a run lasts; every run ends by itself at the first of `durationMs` or `maxRequests`. */
export interface LoadWindow {
  warmupMs: number;
  durationMs: number;
  /** Cap on measured requests; the window closes early when it is reached. */
  maxRequests: number;
}

export interface LoadTotals {
  ops: number;
  errors: number;
  elapsedMs: number;
  latencyMs: LatencySummary;
  /** Event-loop utilisation of the load generator's thread over the measurement window. */
  loadgenBusy: number;
}

/** Largest number of latency samples kept per run (8 bytes each). */
const MAX_LATENCY_SAMPLES = 2_000_000;

/**
 * Connections report each finished request through `complete`; its answer says whether to send another.
 * Requests finishing during warm-up are not counted; after the window closes nothing more is sent.
 */
export class LoadRun {
  #phase: LoadPhase = 'idle';
  #ops = 0;
  #errors = 0;
  #measureStartedAt = 0;
  #measureEndedAt = 0;
  #eluAtStart = performance.eventLoopUtilization();
  #loadgenBusy = 0;
  readonly #recorder: LatencyRecorder;
  readonly #window: LoadWindow;
  readonly #onMeasuring: () => void;
  #finish: () => void = () => undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(window: LoadWindow, onMeasuring: () => void) {
    this.#window = window;
    this.#onMeasuring = onMeasuring;
    this.#recorder = new LatencyRecorder(Math.min(window.maxRequests, MAX_LATENCY_SAMPLES));
  }

  get phase(): LoadPhase {
    return this.#phase;
  }

  get isRunning(): boolean {
    return this.#phase === 'warmup' || this.#phase === 'measure';
  }

  /** Starts the warm-up; resolves when the measurement window has closed. */
  run(): Promise<LoadTotals> {
    return new Promise<LoadTotals>((resolve) => {
      this.#finish = () => resolve(this.#totals());
      this.#phase = 'warmup';
      this.#timer = setTimeout(() => this.#startMeasuring(), this.#window.warmupMs);
    });
  }

  /** Records a finished request started at `startedAt` (performance.now()); true means send the next one. */
  complete(startedAt: number, isOk: boolean): boolean {
    if (this.#phase === 'measure') {
      if (isOk) {
        this.#ops += 1;
        this.#recorder.record(performance.now() - startedAt);
      } else {
        this.#errors += 1;
      }
      if (this.#ops + this.#errors >= this.#window.maxRequests) this.stop();
    }
    return this.isRunning;
  }

  /** A failure outside any request (a dropped connection); counted whatever the phase. */
  fail(): void {
    this.#errors += 1;
  }

  /** Closes the window now (cap reached, or every connection gone). */
  stop(): void {
    if (this.#phase === 'done' || this.#phase === 'idle') return;
    clearTimeout(this.#timer);
    if (this.#phase === 'warmup') this.#markMeasureStart();
    this.#measureEndedAt = performance.now();
    this.#loadgenBusy = performance.eventLoopUtilization(this.#eluAtStart).utilization;
    this.#phase = 'done';
    this.#finish();
  }

  #markMeasureStart(): void {
    this.#measureStartedAt = performance.now();
    this.#eluAtStart = performance.eventLoopUtilization();
  }

  #startMeasuring(): void {
    this.#markMeasureStart();
    this.#phase = 'measure';
    this.#onMeasuring();
    this.#timer = setTimeout(() => this.stop(), this.#window.durationMs);
  }

  #totals(): LoadTotals {
    return {
      ops: this.#ops,
      errors: this.#errors,
      elapsedMs: this.#measureEndedAt - this.#measureStartedAt,
      latencyMs: this.#recorder.summary(),
      loadgenBusy: this.#loadgenBusy,
    };
  }
}

/** A load generator's connections, opened before the run and driven by it. */
export interface LoadConnections {
  /** Sends the first requests; each connection keeps going while `run` says so. */
  start(run: LoadRun): void;
  /** Closes every connection, waiting at most about a second. */
  close(): Promise<void>;
  /** The first response body received ('' before any). */
  sampleBody(): string;
}
