// The clock of one load run: warm-up, then a measurement window bounded in time and in request count.
import { performance } from 'node:perf_hooks';
import { LatencyRecorder, type LatencySummary } from './measure.js';

export type LoadPhase = 'idle' | 'warmup' | 'measure' | 'done';

/** How long a run lasts; every run ends by itself at the first of `durationMs` or `maxRequests`. */
export interface LoadWindow {
  /** Warm-up lasts at least this long... */
  warmupMs: number;
  /** ...and until this many requests have finished (0 when absent), at most MAX_WARMUP_MS. */
  warmupRequests?: number;
  durationMs: number;
  /** Cap on measured requests; the window closes early when it is reached. */
  maxRequests: number;
  /**
   * Splits the measurement into consecutive windows of these many finished requests, each reported on its
   * own (the connections stay busy across the boundaries); when set it replaces `maxRequests` as the count.
   */
  segments?: readonly number[];
}

/** A request-count warm-up gives up after this long, so a stalled server cannot hold a run forever. */
export const MAX_WARMUP_MS = 300_000;

export interface LoadTotals {
  ops: number;
  errors: number;
  /** Requests that finished during the warm-up (not measured). */
  warmupOps: number;
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
  #warmupOps = 0;
  #isWarmupTimeOver = false;
  #measureStartedAt = 0;
  #measureEndedAt = 0;
  #eluAtStart = performance.eventLoopUtilization();
  #loadgenBusy = 0;
  #recorder: LatencyRecorder;
  readonly #window: LoadWindow;
  readonly #segments: readonly number[];
  #segmentIndex = 0;
  readonly #onMeasuring: () => void;
  readonly #onSegment: (totals: LoadTotals) => void;
  #finish: () => void = () => undefined;
  #timer: NodeJS.Timeout | undefined;
  #warmupCap: NodeJS.Timeout | undefined;

  /** `onSegment` receives the totals of every segment but the last, which `run` resolves with. */
  constructor(window: LoadWindow, onMeasuring: () => void, onSegment: (totals: LoadTotals) => void = () => undefined) {
    this.#window = window;
    this.#segments = window.segments ?? [window.maxRequests];
    this.#onMeasuring = onMeasuring;
    this.#onSegment = onSegment;
    this.#recorder = this.#newRecorder();
  }

  #newRecorder(): LatencyRecorder {
    return new LatencyRecorder(Math.max(1, Math.min(this.#segments[this.#segmentIndex] ?? 1, MAX_LATENCY_SAMPLES)));
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
      this.#timer = setTimeout(() => {
        this.#isWarmupTimeOver = true;
        this.#endWarmupIfDone();
      }, this.#window.warmupMs);
      this.#warmupCap = setTimeout(() => this.#startMeasuring(), Math.max(this.#window.warmupMs, MAX_WARMUP_MS));
    });
  }

  /** Records a finished request started at `startedAt` (performance.now()); true means send the next one. */
  complete(startedAt: number, isOk: boolean): boolean {
    if (this.#phase === 'warmup') {
      this.#warmupOps += 1;
      this.#endWarmupIfDone();
    } else if (this.#phase === 'measure') {
      if (isOk) {
        this.#ops += 1;
        this.#recorder.record(performance.now() - startedAt);
      } else {
        this.#errors += 1;
      }
      if (this.#ops + this.#errors >= (this.#segments[this.#segmentIndex] ?? 0)) this.#endSegment();
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
    clearTimeout(this.#warmupCap);
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

  #endWarmupIfDone(): void {
    if (this.#phase === 'warmup' && this.#isWarmupTimeOver && this.#warmupOps >= (this.#window.warmupRequests ?? 0))
      this.#startMeasuring();
  }

  /** The last segment ends the run; an earlier one is reported and the next starts at once. */
  #endSegment(): void {
    if (this.#segmentIndex >= this.#segments.length - 1) {
      this.stop();
      return;
    }
    this.#measureEndedAt = performance.now();
    this.#loadgenBusy = performance.eventLoopUtilization(this.#eluAtStart).utilization;
    this.#onSegment(this.#totals());
    this.#segmentIndex += 1;
    this.#ops = 0;
    this.#errors = 0;
    this.#recorder = this.#newRecorder();
    this.#markMeasureStart();
  }

  #startMeasuring(): void {
    if (this.#phase !== 'warmup') return;
    clearTimeout(this.#timer);
    clearTimeout(this.#warmupCap);
    this.#markMeasureStart();
    this.#phase = 'measure';
    this.#onMeasuring();
    this.#timer = setTimeout(() => this.stop(), this.#window.durationMs);
  }

  #totals(): LoadTotals {
    return {
      ops: this.#ops,
      errors: this.#errors,
      warmupOps: this.#segmentIndex === 0 ? this.#warmupOps : 0,
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
