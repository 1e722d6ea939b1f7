// SQLite implementation of the JobPort: scheduled jobs and the run entry each fire leaves.
import { jobNameTaken, tooManyJobs } from '../../errors.js';
import {
  wakeGateSchema,
  type JobPort,
  type JobRecord,
  type JobRunRecord,
  type JobRunStatus,
  type JobSchedule,
  type WakeGate,
} from '../ports/index.js';
import type { SqliteDatabase } from './database.js';

interface JobRow {
  id: string;
  name: string;
  owner_id: string;
  agent_id: string | null;
  message: string;
  kind: string;
  expr: string | null;
  tz: string;
  every_ms: number | null;
  at_ms: number | null;
  enabled: number;
  wake_gate: string | null;
  next_run_at: number | null;
  last_run_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

interface RunRow {
  ts: number;
  job_id: string;
  status: string;
  duration_ms: number;
  summary: string | null;
  error: string | null;
  tool_calls: number | null;
  est_turns_saved: number | null;
  root_run_id: string | null;
}

const JOB_COLUMNS =
  'id, name, owner_id, agent_id, message, kind, expr, tz, every_ms, at_ms, enabled, wake_gate, next_run_at, last_run_at, last_error, created_at, updated_at';
const RUN_COLUMNS = 'ts, job_id, status, duration_ms, summary, error, tool_calls, est_turns_saved, root_run_id';

function toSchedule(row: JobRow): JobSchedule {
  if (row.kind === 'interval') return { kind: 'interval', everyMs: row.every_ms ?? 0, tz: row.tz };
  if (row.kind === 'once') return { kind: 'once', atMs: row.at_ms ?? 0, tz: row.tz };
  return { kind: 'cron', expr: row.expr ?? '', tz: row.tz };
}

function toWakeGate(text: string | null): WakeGate | null {
  if (text === null) return null;
  const parsed = wakeGateSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

function toJob(row: JobRow): JobRecord {
  return {
    id: row.id,
    name: row.name,
    ownerId: row.owner_id,
    agentId: row.agent_id,
    message: row.message,
    schedule: toSchedule(row),
    enabled: row.enabled === 1,
    wakeGate: toWakeGate(row.wake_gate),
    nextRunAtMs: row.next_run_at,
    lastRunAtMs: row.last_run_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toStatus(value: string): JobRunStatus {
  return value === 'error' || value === 'skipped' ? value : 'ok';
}

function toRun(row: RunRow): JobRunRecord {
  return {
    ts: row.ts,
    jobId: row.job_id,
    status: toStatus(row.status),
    durationMs: row.duration_ms,
    summary: row.summary,
    error: row.error,
    toolCalls: row.tool_calls,
    estTurnsSaved: row.est_turns_saved,
    rootRunId: row.root_run_id,
  };
}

function jobValues(job: JobRecord): unknown[] {
  const { schedule } = job;
  return [
    job.id,
    job.name,
    job.ownerId,
    job.agentId,
    job.message,
    schedule.kind,
    schedule.kind === 'cron' ? schedule.expr : null,
    schedule.tz,
    schedule.kind === 'interval' ? schedule.everyMs : null,
    schedule.kind === 'once' ? schedule.atMs : null,
    job.enabled ? 1 : 0,
    job.wakeGate === null ? null : JSON.stringify(job.wakeGate),
    job.nextRunAtMs,
    job.lastRunAtMs,
    job.lastError,
    job.createdAt,
    job.updatedAt,
  ];
}

function isNameTaken(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function createSqliteJobPort(db: SqliteDatabase): JobPort {
  const placeholders = JOB_COLUMNS.split(',')
    .map(() => '?')
    .join(', ');
  const insert = db.prepare(`INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${placeholders})`);
  // One statement counts and inserts, so two creates cannot both pass the owner's limit.
  const insertWithin = db.prepare(
    `INSERT INTO jobs (${JOB_COLUMNS}) SELECT ${placeholders} WHERE (SELECT COUNT(*) FROM jobs WHERE owner_id = ?) < ?`,
  );
  const replace = db.prepare(
    `UPDATE jobs SET name = ?, owner_id = ?, agent_id = ?, message = ?, kind = ?, expr = ?, tz = ?, every_ms = ?, at_ms = ?,
     enabled = ?, wake_gate = ?, next_run_at = ?, last_run_at = ?, last_error = ?, created_at = ?, updated_at = ? WHERE id = ?`,
  );
  const byId = db.prepare<[string], JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`);
  const byName = db.prepare<[string, string], JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE owner_id = ? AND name = ?`,
  );
  const named = db.prepare<[string, number], JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE name = ? ORDER BY owner_id LIMIT ?`,
  );
  const all = db.prepare<[], JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY name, owner_id`);
  // Keyset pages over the (name, owner) and (owner, name) indexes; '' sorts before every name, so the first page needs
  // no other statement.
  const pageAfterName = db.prepare<[string, number], JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE name > ? ORDER BY name, owner_id LIMIT ?`,
  );
  const pageAfterJob = db.prepare<[string, string, number], JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE (name, owner_id) > (?, ?) ORDER BY name, owner_id LIMIT ?`,
  );
  const pageOwned = db.prepare<[string, string, number], JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE owner_id = ? AND name > ? ORDER BY name LIMIT ?`,
  );
  const deleteJob = db.prepare('DELETE FROM jobs WHERE id = ?');
  const deleteRuns = db.prepare('DELETE FROM job_runs WHERE job_id = ?');
  const insertRun = db.prepare(`INSERT INTO job_runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const newestRuns = db.prepare<[string, number], RunRow>(
    `SELECT ${RUN_COLUMNS} FROM job_runs WHERE job_id = ? ORDER BY seq DESC LIMIT ?`,
  );
  const removeTx = db.transaction((id: string): boolean => {
    deleteRuns.run(id);
    return deleteJob.run(id).changes > 0;
  });
  const write = <T>(job: JobRecord, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      if (isNameTaken(error)) throw jobNameTaken(job.name);
      throw error;
    }
  };
  const one = (row: JobRow | undefined) => (row === undefined ? undefined : toJob(row));
  return {
    async create(job, maxPerOwner) {
      if (maxPerOwner === undefined) {
        write(job, () => insert.run(...jobValues(job)));
        return;
      }
      const { changes } = write(job, () => insertWithin.run(...jobValues(job), job.ownerId, maxPerOwner));
      if (changes === 0) throw tooManyJobs(maxPerOwner);
    },
    async save(job) {
      const [id, ...rest] = jobValues(job);
      write(job, () => replace.run(...rest, id));
    },
    get: async (id) => one(byId.get(id)),
    byName: async (ownerId, name) => one(byName.get(ownerId, name)),
    named: async (name, limit) => named.all(name, limit).map(toJob),
    list: async () => all.all().map(toJob),
    async page({ ownerId, afterName = '', afterOwnerId, limit }, signal) {
      signal?.throwIfAborted();
      if (ownerId !== undefined) return pageOwned.all(ownerId, afterName, limit).map(toJob);
      return (
        afterOwnerId === undefined
          ? pageAfterName.all(afterName, limit)
          : pageAfterJob.all(afterName, afterOwnerId, limit)
      ).map(toJob);
    },
    remove: async (id) => removeTx(id),
    async appendRun(run) {
      insertRun.run(
        run.ts,
        run.jobId,
        run.status,
        run.durationMs,
        run.summary,
        run.error,
        run.toolCalls,
        run.estTurnsSaved,
        run.rootRunId,
      );
    },
    runs: async (jobId, limit) => newestRuns.all(jobId, limit).map(toRun),
  };
}
