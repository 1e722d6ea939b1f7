// The job storage port: scheduled jobs (cron.*), their next fire, and the entry each fire leaves (cron.runs).
import { z } from 'zod';

/** Event names one `events` wake gate may list. */
export const MAX_WAKE_GATE_EVENTS = 32;

/**
 * A cheap check before a fire wakes the model (spec: the wakeGate inner fields are "not shown", decided here).
 * `events`: wake when at least `minCount` bus events with one of these names happened since the job last ran.
 * `tool`: run this tool once without the model; wake when it succeeds with a non-empty result (a failure wakes:
 * the gate fails open, counted as such).
 */
export const wakeGateSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('events'),
    events: z.array(z.string().min(1).max(128)).min(1).max(MAX_WAKE_GATE_EVENTS),
    minCount: z.number().int().min(1).max(10_000).default(1),
  }),
  z.strictObject({
    kind: z.literal('tool'),
    tool: z.string().min(1).max(128),
    args: z.record(z.string(), z.unknown()).default({}),
  }),
]);

export type WakeGate = z.infer<typeof wakeGateSchema>;

/** The chat a heartbeat job's answer goes to (a configured channel connection's chat; Slack/email: its thread). */
export const heartbeatTargetSchema = z.strictObject({
  channelId: z.string().min(1).max(128),
  chatId: z.string().min(1).max(256),
  threadId: z.string().min(1).max(256).optional(),
});

export type HeartbeatTarget = z.infer<typeof heartbeatTargetSchema>;

/** When a job fires: a cron expression in an IANA zone, a fixed interval, or one instant. */
export type JobSchedule =
  | { kind: 'cron'; expr: string; tz: string }
  | { kind: 'interval'; everyMs: number; tz: string }
  | { kind: 'once'; atMs: number; tz: string };

export interface JobRecord {
  id: string;
  /** Unique among its owner's jobs (another owner may use the same name); every cron.* method addresses a job by it. */
  name: string;
  /** The token id that added the job: its fires run as this client, in a session this client owns. */
  ownerId: string;
  /** Null: the default agent. */
  agentId: string | null;
  message: string;
  schedule: JobSchedule;
  enabled: boolean;
  wakeGate: WakeGate | null;
  /** A heartbeat job: its answer is delivered to this chat unless it is exactly HEARTBEAT_OK; null for other jobs. */
  heartbeat: HeartbeatTarget | null;
  /** Null once a `once` job has fired (nothing left to fire). */
  nextRunAtMs: number | null;
  lastRunAtMs: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export type JobRunStatus = 'ok' | 'error' | 'skipped';

/** One fire's entry (spec: "Cron run entry"). */
export interface JobRunRecord {
  ts: number;
  jobId: string;
  status: JobRunStatus;
  durationMs: number;
  summary: string | null;
  error: string | null;
  toolCalls: number | null;
  estTurnsSaved: number | null;
  rootRunId: string | null;
}

export interface JobPageQuery {
  ownerId?: string;
  /** Keyset: the jobs after this name, or with `afterOwnerId` after this (name, owner) pair. */
  afterName?: string;
  afterOwnerId?: string;
  limit: number;
}

export interface JobPort {
  /**
   * Rejects with GatewayError `conflict` when the owner already has a job of that name, and (details
   * `maxJobsPerOwner`) when `maxPerOwner` is given and the owner already has that many jobs; checked atomically.
   */
  create(job: JobRecord, maxPerOwner?: number): Promise<void>;
  /** Replaces the stored job with this id (its name included); rejects with `conflict` when the new name is taken. */
  save(job: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | undefined>;
  /** The owner's job of that name. */
  byName(ownerId: string, name: string): Promise<JobRecord | undefined>;
  /** At most `limit` jobs of any owner with that name, ordered by owner (an admin addressing a job by name). */
  named(name: string, limit: number): Promise<JobRecord[]>;
  /** Ordered by name, then owner. */
  list(signal?: AbortSignal): Promise<JobRecord[]>;
  /** At most `limit` jobs ordered by name then owner, after the keyset when given, of one owner when `ownerId` is given. */
  page(query: JobPageQuery, signal?: AbortSignal): Promise<JobRecord[]>;
  /** Removes the job and its run entries; resolves to whether it existed. */
  remove(id: string): Promise<boolean>;
  appendRun(run: JobRunRecord): Promise<void>;
  /** The job's newest `limit` entries, newest first. */
  runs(jobId: string, limit: number, signal?: AbortSignal): Promise<JobRunRecord[]>;
}
