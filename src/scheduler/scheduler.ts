// The scheduler's clock work: one timer for the next due job, fires under the leader lease, overlap, the owner's rate
// limit, skipped fires backing off, and missed fires.
import type { JobRecord } from '../store/index.js';
import type { FireAdmission } from './fire-admission.js';
import { runFire, type FireDeps } from './fire.js';
import { countFires, nextFireAfter } from './next-fire.js';
import type { FireReason, SchedulerClock } from './types.js';

/** The lease that makes one instance the one that fires jobs. */
export const SCHEDULER_LEASE = 'scheduler';

/** Node keeps timer delays in a signed 32-bit int; a later fire re-arms when this one expires. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** The summary of a fire refused because the job's previous fire was still running. */
export const OVERLAP_SKIPPED = 'overlap: skipped, the previous fire of this job is still running';

/**
 * Fires of one job skipped one after another (overlap, rate limit) push its next attempt out: at least this long
 * after the first skip, twice as long after each further one, up to SKIP_BACKOFF_MAX_MS. A job whose turn hangs
 * on an approval then leaves a handful of entries, not one per interval.
 */
export const SKIP_BACKOFF_FIRST_MS = 1_000;
export const SKIP_BACKOFF_MAX_MS = 300_000;

export interface SchedulerLeases {
  acquire(name: string, ttlMs: number): Promise<boolean>;
  release(name: string): Promise<void>;
}

export interface SchedulerPolicy {
  enabled: boolean;
  missedFires: 'skip' | 'run-once';
  leaseTtlMs: number;
}

export interface SchedulerDeps extends FireDeps {
  clock: SchedulerClock;
  leases: SchedulerLeases;
  policy: () => SchedulerPolicy;
  /** Each fire counts against its owner's rate limit; over it, the fire is skipped. */
  admission: FireAdmission;
}

export interface Scheduler {
  /** Handles fires missed while the gateway was down (scheduler.missedFires), then arms the timer. */
  start(): Promise<void>;
  /** Cancels the timer, aborts fires in flight and waits until each is recorded. */
  stop(): Promise<void>;
  /** Re-reads the jobs and re-arms the timer; called after every change to a job. */
  reschedule(): Promise<void>;
  /** Fires the job now without moving its schedule (cron.run force). */
  force(job: JobRecord): Promise<void>;
  /** Fires every overdue job `accept` selects (cron.run due); resolves to how many. */
  runDue(accept: (job: JobRecord) => boolean): Promise<number>;
  /** Resolves once no timer tick and no fire is in progress. */
  whenIdle(): Promise<void>;
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { clock, jobs, log } = deps;
  const inFlight = new Map<string, Promise<void>>();
  const shutdown = new AbortController();
  let cancelTimer: (() => void) | undefined;
  let chain: Promise<void> = Promise.resolve();
  let state: 'created' | 'started' | 'stopped' = 'created';

  // Ticks, catch-up and cron.run are serialised, so two of them never advance one job's schedule twice.
  function serial(work: () => Promise<void>): Promise<void> {
    const next = chain.then(work).catch((error: unknown) => log.error({ err: error }, 'scheduler tick failed'));
    chain = next;
    return next;
  }

  /** Consecutive skipped fires per job id; a fire that starts ends the streak. */
  const skipStreaks = new Map<string, number>();

  async function recordSkip(job: JobRecord, summary: string): Promise<void> {
    await jobs.appendRun({
      ts: clock.now(),
      jobId: job.id,
      status: 'skipped',
      durationMs: 0,
      summary,
      error: null,
      toolCalls: null,
      estTurnsSaved: null,
      rootRunId: null,
    });
  }

  /**
   * Starts a fire unless the job's previous one still runs or its owner is over the rate limit (then records the
   * skip and says how long the limit holds); never waits for the turn.
   */
  async function launch(
    job: JobRecord,
    reason: FireReason,
    missed = 1,
  ): Promise<{ fired: true } | { fired: false; retryAfterMs: number }> {
    if (inFlight.has(job.id)) {
      await recordSkip(job, OVERLAP_SKIPPED);
      return { fired: false, retryAfterMs: 0 };
    }
    const admission = await deps.admission.admit(job.ownerId);
    if (!admission.admitted) {
      await recordSkip(job, admission.summary);
      return { fired: false, retryAfterMs: admission.retryAfterMs };
    }
    skipStreaks.delete(job.id);
    const fire = runFire(deps, job, reason, missed, shutdown.signal).finally(() => inFlight.delete(job.id));
    inFlight.set(job.id, fire);
    return { fired: true };
  }

  /** After a skipped fire the next attempt waits out the back-off and the rate limit, on the job's own schedule. */
  async function backOff(job: JobRecord, now: number, retryAfterMs: number): Promise<JobRecord> {
    const streak = (skipStreaks.get(job.id) ?? 0) + 1;
    skipStreaks.set(job.id, streak);
    const earliest =
      now + Math.max(retryAfterMs, Math.min(SKIP_BACKOFF_MAX_MS, SKIP_BACKOFF_FIRST_MS * 2 ** (streak - 1)));
    // A `once` job refused by the rate limit tries again when the window reopens; the others keep their grid.
    let nextRunAtMs: number | null = earliest;
    if (job.schedule.kind !== 'once') {
      if (job.nextRunAtMs === null) return job;
      nextRunAtMs = nextFireAfter(job.schedule, earliest - 1, job.nextRunAtMs);
    }
    if (nextRunAtMs === job.nextRunAtMs) return job;
    const next = { ...job, nextRunAtMs };
    await jobs.save(next);
    return next;
  }

  /** Fires a job its schedule made due (already advanced past `now`), or backs it off when the fire is skipped. */
  async function fireDue(job: JobRecord, reason: FireReason, now: number, missed = 1): Promise<JobRecord> {
    const outcome = await launch(job, reason, missed);
    return outcome.fired ? job : backOff(job, now, outcome.retryAfterMs);
  }

  async function advance(job: JobRecord, now: number): Promise<JobRecord> {
    const next = { ...job, nextRunAtMs: nextFireAfter(job.schedule, now, job.nextRunAtMs ?? now) };
    await jobs.save(next);
    return next;
  }

  function arm(atMs: number): void {
    cancelTimer?.();
    cancelTimer = undefined;
    if (state !== 'started') return;
    const delayMs = Math.min(Math.max(0, atMs - clock.now()), MAX_TIMER_DELAY_MS);
    cancelTimer = clock.setTimer(() => void serial(tick), delayMs);
  }

  const isDue = (job: JobRecord, now: number) => job.enabled && job.nextRunAtMs !== null && job.nextRunAtMs <= now;

  async function tick(): Promise<void> {
    cancelTimer?.();
    cancelTimer = undefined;
    const policy = deps.policy();
    if (state !== 'started') return;
    const now = clock.now();
    // While disabled nothing fires; a look every lease period notices `scheduler.enabled` turned back on.
    if (!policy.enabled) return arm(now + policy.leaseTtlMs);
    let all = await jobs.list();
    if (all.some((job) => isDue(job, now))) {
      // Another instance holds the lease: it fires the due jobs; look again once the lease could have passed.
      if (!(await deps.leases.acquire(SCHEDULER_LEASE, policy.leaseTtlMs))) return arm(now + policy.leaseTtlMs);
      // Read again under the lease: another instance may have fired and advanced these jobs before the lease passed here.
      all = await jobs.list();
      all = await Promise.all(
        all.map(async (job) => (isDue(job, now) ? fireDue(await advance(job, now), 'scheduled', now) : job)),
      );
    }
    const ids = new Set(all.map((job) => job.id));
    for (const id of skipStreaks.keys()) if (!ids.has(id)) skipStreaks.delete(id);
    const upcoming = all.filter((job) => job.enabled && job.nextRunAtMs !== null).map((job) => job.nextRunAtMs ?? 0);
    if (upcoming.length > 0) arm(Math.min(...upcoming));
  }

  async function catchUp(): Promise<void> {
    const policy = deps.policy();
    if (!policy.enabled) return;
    const now = clock.now();
    const isMissed = (job: JobRecord) => job.enabled && job.nextRunAtMs !== null && job.nextRunAtMs < now;
    if (!(await jobs.list()).some(isMissed) || !(await deps.leases.acquire(SCHEDULER_LEASE, policy.leaseTtlMs))) return;
    // Read again under the lease, as in tick: another instance may have caught these up already.
    for (const job of (await jobs.list()).filter(isMissed)) {
      const count = countFires(job.schedule, job.nextRunAtMs ?? now, now);
      const next = await advance(job, now);
      if (policy.missedFires === 'run-once') {
        await fireDue(next, 'missed', now, count);
      } else {
        await jobs.appendRun({
          ts: now,
          jobId: job.id,
          status: 'skipped',
          durationMs: 0,
          summary: `missed-fire: skipped (${count} missed)`,
          error: null,
          toolCalls: null,
          estTurnsSaved: null,
          rootRunId: null,
        });
      }
    }
  }

  return {
    async start() {
      state = 'started';
      await serial(async () => {
        await catchUp();
        await tick();
      });
    },
    async stop() {
      state = 'stopped';
      cancelTimer?.();
      cancelTimer = undefined;
      shutdown.abort(new Error('The gateway is shutting down'));
      await chain;
      await Promise.all(inFlight.values());
      await deps.leases.release(SCHEDULER_LEASE);
    },
    reschedule: () => serial(tick),
    force: (job) =>
      serial(async () => {
        await launch(job, 'force');
      }),
    async runDue(accept) {
      let count = 0;
      await serial(async () => {
        const now = clock.now();
        for (const job of (await jobs.list()).filter((candidate) => isDue(candidate, now) && accept(candidate))) {
          count += 1;
          await fireDue(await advance(job, now), 'due', now);
        }
        await tick();
      });
      return count;
    },
    async whenIdle() {
      for (;;) {
        const settled = chain;
        await settled;
        const fires = [...inFlight.values()];
        await Promise.all(fires);
        if (chain === settled && inFlight.size === 0) return;
      }
    },
  };
}
