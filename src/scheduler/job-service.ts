// cron.* behind the methods: validates schedules (expr, IANA zone, `at` in the future), keeps jobs, reads run entries.
import type { SessionCaller } from '../agents/index.js';
import { agentNotFound, invalidParams, jobNotFound } from '../errors.js';
import type { JobPort, JobRecord, JobSchedule, WakeGate } from '../store/index.js';
import { jobEntry, jobStatus, runEntry, type JobEntry } from './job-views.js';
import { assertCronExpression, assertTimeZone, DEFAULT_TZ, nextFireAfter } from './next-fire.js';
import type { Scheduler } from './scheduler.js';

export interface ScheduleInput {
  kind: 'cron' | 'interval' | 'once';
  expr?: string | undefined;
  tz?: string | undefined;
  everyMs?: number | undefined;
  at?: string | undefined;
}

export interface AddJobInput {
  name: string;
  message: string;
  agentId?: string | undefined;
  schedule: ScheduleInput;
  wakeGate?: WakeGate | undefined;
}

export interface UpdateJobInput {
  name: string;
  message?: string | undefined;
  agentId?: string | undefined;
  schedule?: ScheduleInput | undefined;
  /** null removes the gate. */
  wakeGate?: WakeGate | null | undefined;
  enabled?: boolean | undefined;
}

export interface JobServiceDeps {
  jobs: JobPort;
  scheduler: Pick<Scheduler, 'reschedule' | 'force' | 'runDue'>;
  hasAgent: (agentId: string) => boolean;
  limits: () => { minIntervalMs: number; defaultRunEntries: number; maxRunEntries: number };
  now: () => number;
  newId: () => string;
}

/** Fields a schedule kind does not take: naming one is refused rather than silently ignored. */
const FOREIGN_FIELDS = { cron: ['everyMs', 'at'], interval: ['expr', 'at'], once: ['expr', 'everyMs'] } as const;

function toSchedule(input: ScheduleInput, now: number, minIntervalMs: number): JobSchedule {
  for (const field of FOREIGN_FIELDS[input.kind]) {
    if (input[field] !== undefined) throw invalidParams(`schedule.${field}: not used by a '${input.kind}' schedule`, `schedule.${field}`);
  }
  const tz = input.tz ?? DEFAULT_TZ;
  assertTimeZone(tz);
  if (input.kind === 'cron') {
    if (input.expr === undefined) throw invalidParams("schedule.expr: required for a 'cron' schedule", 'schedule.expr');
    assertCronExpression(input.expr, tz, now);
    return { kind: 'cron', expr: input.expr, tz };
  }
  if (input.kind === 'interval') {
    if (input.everyMs === undefined) throw invalidParams("schedule.everyMs: required for an 'interval' schedule", 'schedule.everyMs');
    if (input.everyMs < minIntervalMs) throw invalidParams(`schedule.everyMs: must be at least ${minIntervalMs} ms (scheduler.minIntervalMs)`, 'schedule.everyMs');
    return { kind: 'interval', everyMs: input.everyMs, tz };
  }
  if (input.at === undefined) throw invalidParams("schedule.at: required for a 'once' schedule", 'schedule.at');
  const atMs = Date.parse(input.at);
  if (Number.isNaN(atMs)) throw invalidParams(`schedule.at: '${input.at}' is not an ISO 8601 date-time`, 'schedule.at');
  if (atMs <= now) throw invalidParams(`schedule.at: ${input.at} is in the past`, 'schedule.at');
  return { kind: 'once', atMs, tz };
}

function firstFire(schedule: JobSchedule, now: number): number | null {
  // An interval's first fire is one interval after it was set; its later fires stay on that grid.
  return nextFireAfter(schedule, now, schedule.kind === 'interval' ? now + schedule.everyMs : now);
}

export function createJobService(deps: JobServiceDeps) {
  const { jobs, scheduler, now } = deps;

  /** The caller's job by name: someone else's answers not_found like a missing one (admins reach all). */
  async function owned(name: string, caller: SessionCaller, param = 'name'): Promise<JobRecord> {
    const job = await jobs.byName(name);
    if (job === undefined || !(caller.isAdmin || job.ownerId === caller.clientId)) throw jobNotFound(name, param);
    return job;
  }

  function assertAgent(agentId: string | undefined): void {
    if (agentId !== undefined && !deps.hasAgent(agentId)) throw agentNotFound(agentId, 'agentId');
  }

  return {
    /** One page by name; `nextCursor` (the last name) continues it, null on the last page. */
    async list(caller: SessionCaller, page: { limit: number; cursor?: string }, signal?: AbortSignal): Promise<{ jobs: JobEntry[]; nextCursor: string | null }> {
      // One row more than the page says whether another page follows, without counting the table.
      const rows = await jobs.page({
        ...(caller.isAdmin ? {} : { ownerId: caller.clientId }),
        ...(page.cursor === undefined ? {} : { afterName: page.cursor }),
        limit: page.limit + 1,
      }, signal);
      const shown = rows.slice(0, page.limit);
      return { jobs: shown.map(jobEntry), nextCursor: rows.length > page.limit ? (shown.at(-1)?.name ?? null) : null };
    },
    async add(input: AddJobInput, caller: SessionCaller): Promise<JobEntry> {
      assertAgent(input.agentId);
      const at = now();
      const schedule = toSchedule(input.schedule, at, deps.limits().minIntervalMs);
      const job: JobRecord = {
        id: deps.newId(), name: input.name, ownerId: caller.clientId, agentId: input.agentId ?? null, message: input.message,
        schedule, enabled: true, wakeGate: input.wakeGate ?? null, nextRunAtMs: firstFire(schedule, at),
        lastRunAtMs: null, lastError: null, createdAt: at, updatedAt: at,
      };
      await jobs.create(job);
      await scheduler.reschedule();
      return jobEntry(job);
    },
    async update(input: UpdateJobInput, caller: SessionCaller): Promise<JobEntry> {
      const job = await owned(input.name, caller);
      assertAgent(input.agentId);
      const at = now();
      const schedule = input.schedule === undefined ? job.schedule : toSchedule(input.schedule, at, deps.limits().minIntervalMs);
      const enabled = input.enabled ?? job.enabled;
      // A new schedule, or a job enabled again, starts from now rather than from fires it was not due for.
      const isRestarted = input.schedule !== undefined || (enabled && !job.enabled);
      const next: JobRecord = {
        ...job,
        ...(input.message === undefined ? {} : { message: input.message }),
        ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
        ...(input.wakeGate === undefined ? {} : { wakeGate: input.wakeGate }),
        schedule, enabled, updatedAt: at,
        nextRunAtMs: isRestarted ? firstFire(schedule, at) : job.nextRunAtMs,
      };
      await jobs.save(next);
      await scheduler.reschedule();
      return jobEntry(next);
    },
    async remove(name: string, caller: SessionCaller) {
      const job = await owned(name, caller);
      await jobs.remove(job.id);
      await scheduler.reschedule();
      return { removed: true, name };
    },
    status: async (name: string, caller: SessionCaller) => jobStatus(await owned(name, caller)),
    async runs(input: { jobName: string; limit?: number | undefined; agentId?: string | undefined }, caller: SessionCaller, signal?: AbortSignal) {
      const job = await owned(input.jobName, caller, 'jobName');
      const { defaultRunEntries, maxRunEntries } = deps.limits();
      const limit = Math.min(input.limit ?? defaultRunEntries, maxRunEntries);
      // agentId narrows to the job's agent: a job run by another agent has no entries for it.
      if (input.agentId !== undefined && input.agentId !== (job.agentId ?? input.agentId)) return { runs: [] };
      return { runs: (await jobs.runs(job.id, limit, signal)).map(runEntry) };
    },
    async run(input: { name?: string | undefined; mode?: 'force' | 'due' | undefined }, caller: SessionCaller) {
      const mode = input.mode ?? 'force';
      if (mode === 'due') {
        await scheduler.runDue((job) => caller.isAdmin || job.ownerId === caller.clientId);
        return { triggered: true, mode };
      }
      if (input.name === undefined) throw invalidParams("name: required when mode is 'force'", 'name');
      await scheduler.force(await owned(input.name, caller));
      return { triggered: true, mode, jobName: input.name };
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
