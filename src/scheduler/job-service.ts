// cron.* behind the methods: validates schedules (expr, IANA zone, `at` in the future, gaps), keeps each owner's jobs,
// reads run entries.
import type { SessionCaller } from '../agents/index.js';
import { agentNotFound, insufficientScope, invalidParams, jobNotFound } from '../errors.js';
import type { HeartbeatTarget, JobPort, JobRecord, JobSchedule, WakeGate } from '../store/index.js';
import { DEFAULT_HEARTBEAT_PROMPT } from './heartbeat.js';
import { jobEntry, jobStatus, runEntry, type JobEntry } from './job-views.js';
import { decodeJobCursor, encodeJobCursor } from './list-cursor.js';
import { assertCronExpression, assertCronGap, assertTimeZone, DEFAULT_TZ, nextFireAfter } from './next-fire.js';
import type { Scheduler } from './scheduler.js';

/** Which job a name means: the caller's own; an admin may name another token's with `ownerId`. */
export interface JobAddress {
  name: string;
  ownerId?: string | undefined;
}

export interface ScheduleInput {
  kind: 'cron' | 'interval' | 'once';
  expr?: string | undefined;
  tz?: string | undefined;
  everyMs?: number | undefined;
  at?: string | undefined;
}

export interface AddJobInput {
  name: string;
  /** Required unless the job is a heartbeat (which defaults to DEFAULT_HEARTBEAT_PROMPT). */
  message?: string | undefined;
  agentId?: string | undefined;
  schedule: ScheduleInput;
  wakeGate?: WakeGate | undefined;
  heartbeat?: HeartbeatTarget | undefined;
}

export interface UpdateJobInput extends JobAddress {
  message?: string | undefined;
  agentId?: string | undefined;
  schedule?: ScheduleInput | undefined;
  /** null removes the gate. */
  wakeGate?: WakeGate | null | undefined;
  /** null makes the job an ordinary one again. */
  heartbeat?: HeartbeatTarget | null | undefined;
  enabled?: boolean | undefined;
}

export interface JobServiceDeps {
  jobs: JobPort;
  scheduler: Pick<Scheduler, 'reschedule' | 'force' | 'runDue'>;
  hasAgent: (agentId: string) => boolean;
  /** Whether `channels.<id>` is configured: a heartbeat may name only such a connection. */
  hasChannel: (channelId: string) => boolean;
  limits: () => { minIntervalMs: number; defaultRunEntries: number; maxRunEntries: number; maxJobsPerOwner: number };
  now: () => number;
  newId: () => string;
}

/** Fields a schedule kind does not take: naming one is refused rather than silently ignored. */
const FOREIGN_FIELDS = { cron: ['everyMs', 'at'], interval: ['expr', 'at'], once: ['expr', 'everyMs'] } as const;

function toSchedule(input: ScheduleInput, now: number, minIntervalMs: number): JobSchedule {
  for (const field of FOREIGN_FIELDS[input.kind]) {
    if (input[field] !== undefined)
      throw invalidParams(`schedule.${field}: not used by a '${input.kind}' schedule`, `schedule.${field}`);
  }
  const tz = input.tz ?? DEFAULT_TZ;
  assertTimeZone(tz);
  if (input.kind === 'cron') {
    if (input.expr === undefined) throw invalidParams("schedule.expr: required for a 'cron' schedule", 'schedule.expr');
    assertCronExpression(input.expr, tz, now);
    assertCronGap(input.expr, tz, now, minIntervalMs);
    return { kind: 'cron', expr: input.expr, tz };
  }
  if (input.kind === 'interval') {
    if (input.everyMs === undefined)
      throw invalidParams("schedule.everyMs: required for an 'interval' schedule", 'schedule.everyMs');
    if (input.everyMs < minIntervalMs)
      throw invalidParams(
        `schedule.everyMs: must be at least ${minIntervalMs} ms (scheduler.minIntervalMs)`,
        'schedule.everyMs',
      );
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

  /**
   * The job a name means to the caller: its own (someone else's answers not_found like a missing one). An admin
   * reaches every job: its own of that name, else the only one of that name, or the one of `ownerId`.
   */
  async function owned({ name, ownerId }: JobAddress, caller: SessionCaller, param = 'name'): Promise<JobRecord> {
    if (caller.isAdmin && ownerId === undefined)
      return (await jobs.byName(caller.clientId, name)) ?? onlyNamed(name, param);
    const mayReach = caller.isAdmin || ownerId === undefined || ownerId === caller.clientId;
    const job = mayReach ? await jobs.byName(ownerId ?? caller.clientId, name) : undefined;
    if (job === undefined) throw jobNotFound(name, param);
    return job;
  }

  async function onlyNamed(name: string, param: string): Promise<JobRecord> {
    const [job, other] = await jobs.named(name, 2);
    if (job === undefined) throw jobNotFound(name, param);
    if (other !== undefined)
      throw invalidParams(`ownerId: several tokens have a job named '${name}'; name its owner`, 'ownerId');
    return job;
  }

  function assertAgent(agentId: string | undefined): void {
    if (agentId !== undefined && !deps.hasAgent(agentId)) throw agentNotFound(agentId, 'agentId');
  }

  /** A heartbeat posts into a chat as the connection's bot, as channels.send does: admin tokens only. */
  function assertHeartbeat(heartbeat: HeartbeatTarget | null | undefined, caller: SessionCaller): void {
    if (heartbeat === undefined || heartbeat === null) return;
    if (!caller.isAdmin) throw insufficientScope('admin');
    if (!deps.hasChannel(heartbeat.channelId))
      throw invalidParams(
        `heartbeat.channelId: no channel connection named '${heartbeat.channelId}' in channels`,
        'heartbeat.channelId',
      );
  }

  return {
    /** One page by name (then owner); `nextCursor` continues it (list-cursor.ts), null on the last page. */
    async list(
      caller: SessionCaller,
      page: { limit: number; cursor?: string },
      signal?: AbortSignal,
    ): Promise<{ jobs: JobEntry[]; nextCursor: string | null }> {
      // One row more than the page says whether another page follows, without counting the table.
      const rows = await jobs.page(
        {
          ...(caller.isAdmin ? {} : { ownerId: caller.clientId }),
          ...(page.cursor === undefined ? {} : decodeJobCursor(page.cursor)),
          limit: page.limit + 1,
        },
        signal,
      );
      const shown = rows.slice(0, page.limit);
      const last = shown.at(-1);
      return {
        jobs: shown.map(jobEntry),
        nextCursor: rows.length > page.limit && last !== undefined ? encodeJobCursor(last, rows[page.limit]) : null,
      };
    },
    async add(input: AddJobInput, caller: SessionCaller): Promise<JobEntry> {
      assertAgent(input.agentId);
      assertHeartbeat(input.heartbeat, caller);
      const message = input.message ?? (input.heartbeat === undefined ? undefined : DEFAULT_HEARTBEAT_PROMPT);
      if (message === undefined) throw invalidParams('message: required unless the job is a heartbeat', 'message');
      const at = now();
      const schedule = toSchedule(input.schedule, at, deps.limits().minIntervalMs);
      const job: JobRecord = {
        id: deps.newId(),
        name: input.name,
        ownerId: caller.clientId,
        agentId: input.agentId ?? null,
        message,
        schedule,
        enabled: true,
        wakeGate: input.wakeGate ?? null,
        heartbeat: input.heartbeat ?? null,
        nextRunAtMs: firstFire(schedule, at),
        lastRunAtMs: null,
        lastError: null,
        createdAt: at,
        updatedAt: at,
      };
      await jobs.create(job, deps.limits().maxJobsPerOwner);
      await scheduler.reschedule();
      return jobEntry(job);
    },
    async update(input: UpdateJobInput, caller: SessionCaller): Promise<JobEntry> {
      const job = await owned(input, caller);
      assertAgent(input.agentId);
      assertHeartbeat(input.heartbeat, caller);
      const at = now();
      const schedule =
        input.schedule === undefined ? job.schedule : toSchedule(input.schedule, at, deps.limits().minIntervalMs);
      const enabled = input.enabled ?? job.enabled;
      // A new schedule, or a job enabled again, starts from now rather than from fires it was not due for.
      const isRestarted = input.schedule !== undefined || (enabled && !job.enabled);
      const next: JobRecord = {
        ...job,
        ...(input.message === undefined ? {} : { message: input.message }),
        ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
        ...(input.wakeGate === undefined ? {} : { wakeGate: input.wakeGate }),
        ...(input.heartbeat === undefined ? {} : { heartbeat: input.heartbeat }),
        schedule,
        enabled,
        updatedAt: at,
        nextRunAtMs: isRestarted ? firstFire(schedule, at) : job.nextRunAtMs,
      };
      await jobs.save(next);
      await scheduler.reschedule();
      return jobEntry(next);
    },
    async remove(address: JobAddress, caller: SessionCaller) {
      const job = await owned(address, caller);
      await jobs.remove(job.id);
      await scheduler.reschedule();
      return { removed: true, name: address.name };
    },
    status: async (address: JobAddress, caller: SessionCaller) => jobStatus(await owned(address, caller)),
    async runs(
      input: {
        jobName: string;
        ownerId?: string | undefined;
        limit?: number | undefined;
        agentId?: string | undefined;
      },
      caller: SessionCaller,
      signal?: AbortSignal,
    ) {
      const job = await owned({ name: input.jobName, ownerId: input.ownerId }, caller, 'jobName');
      const { defaultRunEntries, maxRunEntries } = deps.limits();
      const limit = Math.min(input.limit ?? defaultRunEntries, maxRunEntries);
      // agentId narrows to the job's agent: a job run by another agent has no entries for it.
      if (input.agentId !== undefined && input.agentId !== (job.agentId ?? input.agentId)) return { runs: [] };
      return { runs: (await jobs.runs(job.id, limit, signal)).map(runEntry) };
    },
    async run(
      input: { name?: string | undefined; ownerId?: string | undefined; mode?: 'force' | 'due' | undefined },
      caller: SessionCaller,
    ) {
      const mode = input.mode ?? 'force';
      if (mode === 'due') {
        await scheduler.runDue((job) => caller.isAdmin || job.ownerId === caller.clientId);
        return { triggered: true, mode };
      }
      if (input.name === undefined) throw invalidParams("name: required when mode is 'force'", 'name');
      await scheduler.force(await owned({ name: input.name, ownerId: input.ownerId }, caller));
      return { triggered: true, mode, jobName: input.name };
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
