// The spec's shapes of a job (Cron job entry, cron.status) and of a fire (Cron run entry), built from stored records.
import type { HeartbeatTarget, JobRecord, JobRunRecord, WakeGate } from '../store/index.js';

export interface JobEntry {
  id: string;
  name: string;
  /** The token whose job it is: its fires run as this client; another owner may have a job of the same name. */
  ownerId: string;
  scheduleKind: JobRecord['schedule']['kind'];
  expr?: string;
  /** Always present: the zone cron expressions are read in (UTC unless the job named one). */
  tz: string;
  everyMs?: number;
  /** A `once` job's instant, ISO 8601. */
  at?: string;
  agentId?: string;
  /** Null once nothing is left to fire (a `once` job that fired). */
  nextRunAtMs: number | null;
  enabled: boolean;
  lastRunAtMs?: number;
  lastError?: string;
  wakeGate?: WakeGate;
  /** A heartbeat job's chat: its answers other than HEARTBEAT_OK are delivered there. */
  heartbeat?: HeartbeatTarget;
}

export function jobEntry(job: JobRecord): JobEntry {
  const { schedule } = job;
  return {
    id: job.id,
    name: job.name,
    ownerId: job.ownerId,
    scheduleKind: schedule.kind,
    ...(schedule.kind === 'cron' ? { expr: schedule.expr } : {}),
    tz: schedule.tz,
    ...(schedule.kind === 'interval' ? { everyMs: schedule.everyMs } : {}),
    ...(schedule.kind === 'once' ? { at: new Date(schedule.atMs).toISOString() } : {}),
    ...(job.agentId === null ? {} : { agentId: job.agentId }),
    nextRunAtMs: job.nextRunAtMs,
    enabled: job.enabled,
    ...(job.lastRunAtMs === null ? {} : { lastRunAtMs: job.lastRunAtMs }),
    ...(job.lastError === null ? {} : { lastError: job.lastError }),
    ...(job.wakeGate === null ? {} : { wakeGate: job.wakeGate }),
    ...(job.heartbeat === null ? {} : { heartbeat: job.heartbeat }),
  };
}

export function jobStatus(job: JobRecord) {
  return {
    id: job.id,
    name: job.name,
    scheduleKind: job.schedule.kind,
    nextRunAtMs: job.nextRunAtMs,
    enabled: job.enabled,
    ...(job.lastRunAtMs === null ? {} : { lastRunAtMs: job.lastRunAtMs }),
    ...(job.lastError === null ? {} : { lastError: job.lastError }),
  };
}

export function runEntry(run: JobRunRecord) {
  return {
    ts: run.ts,
    jobId: run.jobId,
    status: run.status,
    durationMs: run.durationMs,
    ...(run.summary === null ? {} : { summary: run.summary }),
    ...(run.error === null ? {} : { error: run.error }),
    ...(run.toolCalls === null ? {} : { toolCalls: run.toolCalls }),
    ...(run.estTurnsSaved === null ? {} : { estTurnsSaved: run.estTurnsSaved }),
    ...(run.rootRunId === null ? {} : { rootRunId: run.rootRunId }),
  };
}
