// PostgreSQL implementation of the JobPort: scheduled jobs and the run entry each fire leaves.
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
import { sqlState, transaction, UNIQUE_VIOLATION, type PgPool } from './pool.js';
import type { PgValue } from './where.js';

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
  enabled: boolean;
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
const placeholders = (count: number, from = 1) =>
  Array.from({ length: count }, (_, index) => `$${index + from}`).join(', ');

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
    enabled: row.enabled,
    wakeGate: toWakeGate(row.wake_gate),
    nextRunAtMs: row.next_run_at,
    lastRunAtMs: row.last_run_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const toStatus = (value: string): JobRunStatus => (value === 'error' || value === 'skipped' ? value : 'ok');

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

function jobValues(job: JobRecord): PgValue[] {
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
    job.enabled,
    job.wakeGate === null ? null : JSON.stringify(job.wakeGate),
    job.nextRunAtMs,
    job.lastRunAtMs,
    job.lastError,
    job.createdAt,
    job.updatedAt,
  ];
}

export function createPostgresJobPort(pool: PgPool): JobPort {
  const write = async <T>(job: JobRecord, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (sqlState(error) === UNIQUE_VIOLATION) throw jobNameTaken(job.name);
      throw error;
    }
  };
  const one = async (sql: string, values: PgValue[]) => {
    const row = (await pool.query<JobRow>(sql, values)).rows[0];
    return row === undefined ? undefined : toJob(row);
  };
  const insert = `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${placeholders(17)})`;
  return {
    async create(job, maxPerOwner) {
      if (maxPerOwner === undefined) {
        await write(job, () => pool.query(insert, jobValues(job)));
        return;
      }
      // One owner's creates take turns on an advisory lock, so the count each sees includes the others' rows.
      const created = await write(job, () =>
        transaction(pool, async (client) => {
          await client.query("SELECT pg_advisory_xact_lock(hashtext('jobs:' || $1))", [job.ownerId]);
          const owned = await client.query<{ count: number }>(
            'SELECT COUNT(*)::int AS count FROM jobs WHERE owner_id = $1',
            [job.ownerId],
          );
          if ((owned.rows[0]?.count ?? 0) >= maxPerOwner) return false;
          await client.query(insert, jobValues(job));
          return true;
        }),
      );
      if (!created) throw tooManyJobs(maxPerOwner);
    },
    async save(job) {
      const [id, ...rest] = jobValues(job);
      await write(job, () =>
        pool.query(
          `UPDATE jobs SET name = $1, owner_id = $2, agent_id = $3, message = $4, kind = $5, expr = $6, tz = $7, every_ms = $8, at_ms = $9,
         enabled = $10, wake_gate = $11, next_run_at = $12, last_run_at = $13, last_error = $14, created_at = $15, updated_at = $16 WHERE id = $17`,
          [...rest, id ?? null],
        ),
      );
    },
    get: (id) => one(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]),
    byName: (ownerId, name) =>
      one(`SELECT ${JOB_COLUMNS} FROM jobs WHERE owner_id = $1 AND name = $2`, [ownerId, name]),
    named: async (name, limit) =>
      (
        await pool.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE name = $1 ORDER BY owner_id LIMIT $2`, [
          name,
          limit,
        ])
      ).rows.map(toJob),
    list: async () =>
      (await pool.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY name, owner_id`)).rows.map(toJob),
    // Keyset pages by (name, owner), or one owner's by name; '' sorts before every name, so the first page needs no
    // other statement.
    async page({ ownerId, afterName = '', afterOwnerId, limit }, signal) {
      signal?.throwIfAborted();
      const [where, values]: [string, PgValue[]] =
        ownerId !== undefined
          ? ['owner_id = $3 AND name > $1', [afterName, limit, ownerId]]
          : afterOwnerId === undefined
            ? ['name > $1', [afterName, limit]]
            : ['(name, owner_id) > ($1, $3)', [afterName, limit, afterOwnerId]];
      const order = ownerId === undefined ? 'name, owner_id' : 'name';
      return (
        await pool.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE ${where} ORDER BY ${order} LIMIT $2`, values)
      ).rows.map(toJob);
    },
    remove: (id) =>
      transaction(pool, async (client) => {
        await client.query('DELETE FROM job_runs WHERE job_id = $1', [id]);
        return ((await client.query('DELETE FROM jobs WHERE id = $1', [id])).rowCount ?? 0) > 0;
      }),
    async appendRun(run) {
      await pool.query(`INSERT INTO job_runs (${RUN_COLUMNS}) VALUES (${placeholders(9)})`, [
        run.ts,
        run.jobId,
        run.status,
        run.durationMs,
        run.summary,
        run.error,
        run.toolCalls,
        run.estTurnsSaved,
        run.rootRunId,
      ]);
    },
    runs: async (jobId, limit) =>
      (
        await pool.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM job_runs WHERE job_id = $1 ORDER BY seq DESC LIMIT $2`, [
          jobId,
          limit,
        ])
      ).rows.map(toRun),
  };
}
