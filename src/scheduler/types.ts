// What the scheduler needs from outside its folder, as its own structural interfaces (the lead passes the real objects).

/** A cron fire as a run (the issue 13 contract; src/runs implements it as `runControl`). */
export interface RunLifecycle {
  /**
   * Records a new run (state `running`, owner this instance) and registers it live in this process.
   * `signal` aborts when run.kill hits its tree, the denial breaker trips for it, or the gateway shuts down.
   */
  startRun(input: {
    runId: string;
    rootRunId: string;
    kind: 'cron' | 'spawn' | 'webhook';
    agentId: string;
    sessionKey: string;
    task: string;
    requestedBy: string | null;
  }): Promise<{ signal: AbortSignal; finish(outcome: RunFinish): Promise<unknown> }>;
}

export interface RunFinish {
  status: 'completed' | 'failed';
  response?: string;
  tokensUsed?: { input: number; output: number; total: number };
  costUsd?: number;
  error?: string;
}

/** Time as the scheduler sees it: injected so tests drive it with a fake clock. */
export interface SchedulerClock {
  now(): number;
  /** Calls `fire` once after `delayMs`; returns what cancels it. The timer must not keep the process alive. */
  setTimer(fire: () => void, delayMs: number): () => void;
}

export const systemClock: SchedulerClock = {
  now: Date.now,
  setTimer(fire, delayMs) {
    const timer = setTimeout(fire, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Why a fire happened: its schedule, `cron.run` (force or due), or a fire missed while the gateway was down. */
export type FireReason = 'scheduled' | 'force' | 'due' | 'missed';
