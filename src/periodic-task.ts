// A task a timer runs every interval, never two at once: the next run is scheduled once one ends, a run asked for
// while one goes joins it, and stop cancels the next run and waits for the running one.

export interface PeriodicTask<T> {
  /** Schedules the first run one interval from now; a second call does nothing. */
  start(): void;
  /** Cancels the next run and waits for a running one (its failure is the caller's run to report, not stop's). */
  stop(): Promise<void>;
  /** Runs now, or joins the run already going. */
  runNow(): Promise<T>;
  /** True once stop was called: a long run checks it between its steps. */
  isStopped(): boolean;
}

export interface PeriodicTaskOptions<T> {
  run: () => Promise<T>;
  /** Read before each scheduling, so a changed setting applies from the next run; 0 or less schedules none. */
  intervalMs: () => number;
  /** A run the timer started failed (a run asked for through runNow rejects to its caller instead). */
  onTimedFailure: (error: unknown) => void;
}

export function createPeriodicTask<T>({ run, intervalMs, onTimedFailure }: PeriodicTaskOptions<T>): PeriodicTask<T> {
  let state: 'created' | 'started' | 'stopped' = 'created';
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<T> | undefined;

  function runNow(): Promise<T> {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(): void {
    const delayMs = intervalMs();
    if (state !== 'started' || delayMs <= 0) return;
    timer = setTimeout(function periodicTick() {
      timer = undefined;
      void runNow().catch(onTimedFailure).finally(schedule);
    }, delayMs);
    timer.unref();
  }

  return {
    start() {
      if (state !== 'created') return;
      state = 'started';
      schedule();
    },
    async stop() {
      state = 'stopped';
      clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
    runNow,
    isStopped: () => state === 'stopped',
  };
}
