// The JobPort on both dialects: scheduled jobs and the run entry each fire leaves.
import { jobNameTaken, tooManyJobs } from '../../errors.js';
import {
  heartbeatTargetSchema,
  wakeGateSchema,
  type HeartbeatTarget,
  type JobPort,
  type JobRecord,
  type JobRunRecord,
  type JobSchedule,
  type WakeGate,
} from '../index.js';
import { flag, isSet, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

type JobRow = Tables['jobs'];

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

function toHeartbeat(text: string | null): HeartbeatTarget | null {
  if (text === null) return null;
  const parsed = heartbeatTargetSchema.safeParse(JSON.parse(text));
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
    enabled: isSet(row.enabled),
    wakeGate: toWakeGate(row.wake_gate),
    heartbeat: toHeartbeat(row.heartbeat),
    nextRunAtMs: row.next_run_at,
    lastRunAtMs: row.last_run_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRun(row: Omit<Tables['job_runs'], 'seq'>): JobRunRecord {
  return {
    ts: row.ts,
    jobId: row.job_id,
    status: row.status === 'error' || row.status === 'skipped' ? row.status : 'ok',
    durationMs: row.duration_ms,
    summary: row.summary,
    error: row.error,
    toolCalls: row.tool_calls,
    estTurnsSaved: row.est_turns_saved,
    rootRunId: row.root_run_id,
  };
}

function toRow(store: StoreDb, job: JobRecord): JobRow {
  const { schedule } = job;
  return {
    id: job.id,
    name: job.name,
    owner_id: job.ownerId,
    agent_id: job.agentId,
    message: job.message,
    kind: schedule.kind,
    expr: schedule.kind === 'cron' ? schedule.expr : null,
    tz: schedule.tz,
    every_ms: schedule.kind === 'interval' ? schedule.everyMs : null,
    at_ms: schedule.kind === 'once' ? schedule.atMs : null,
    enabled: flag(store, job.enabled),
    wake_gate: job.wakeGate === null ? null : JSON.stringify(job.wakeGate),
    heartbeat: job.heartbeat === null ? null : JSON.stringify(job.heartbeat),
    next_run_at: job.nextRunAtMs,
    last_run_at: job.lastRunAtMs,
    last_error: job.lastError,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}

/** Each column's SQL type, for the values of an INSERT…SELECT (PostgreSQL reads an untyped select-list value as text). */
const COLUMN_TYPES: Record<keyof JobRow, 'text' | 'bigint' | 'boolean'> = {
  id: 'text',
  name: 'text',
  owner_id: 'text',
  agent_id: 'text',
  message: 'text',
  kind: 'text',
  expr: 'text',
  tz: 'text',
  every_ms: 'bigint',
  at_ms: 'bigint',
  enabled: 'boolean',
  wake_gate: 'text',
  heartbeat: 'text',
  next_run_at: 'bigint',
  last_run_at: 'bigint',
  last_error: 'text',
  created_at: 'bigint',
  updated_at: 'bigint',
};
const JOB_COLUMNS = Object.keys(COLUMN_TYPES) as (keyof JobRow)[];

export function createJobPort(store: StoreDb): JobPort {
  const { db } = store;
  const jobs = () => db.selectFrom('jobs').selectAll();
  const write = async <T>(job: JobRecord, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (store.violated(error) === 'unique') throw jobNameTaken(job.name);
      throw error;
    }
  };
  const one = async (query: ReturnType<typeof jobs>) => (await store.rows(query)).map(toJob)[0];
  const many = async (query: ReturnType<typeof jobs>) => (await store.rows(query)).map(toJob);

  /** One statement inserts only while the owner has fewer than `max` jobs; PostgreSQL first takes the owner's lock. */
  function createWithin(job: JobRecord, max: number) {
    const row = toRow(store, job);
    const insert = db
      .insertInto('jobs')
      .columns(JOB_COLUMNS)
      .expression(
        db
          .selectNoFrom((eb) =>
            JOB_COLUMNS.map((column) => eb.cast(eb.val(row[column]), COLUMN_TYPES[column]).as(column)),
          )
          .where((eb) =>
            eb(
              eb
                .selectFrom('jobs')
                .select((count) => count.fn.countAll().as('n'))
                .where('owner_id', '=', job.ownerId),
              '<',
              max,
            ),
          ),
      );
    // Under READ COMMITTED the INSERT's snapshot is taken once the owner's lock is held: it counts the last holder's job.
    const lock = db.selectNoFrom((eb) =>
      eb.fn('pg_advisory_xact_lock', [eb.fn('hashtext', [eb.val(`jobs:${job.ownerId}`)])]).as('locked'),
    );
    return store.atomic(store.dialect === 'postgres' ? [lock, insert] : [insert]);
  }

  return {
    async create(job, maxPerOwner) {
      if (maxPerOwner === undefined) {
        await write(job, () => store.changes(db.insertInto('jobs').values(toRow(store, job))));
        return;
      }
      const changed = await write(job, () => createWithin(job, maxPerOwner));
      if (changed.at(-1) === 0) throw tooManyJobs(maxPerOwner);
    },
    async save(job) {
      const { id, ...rest } = toRow(store, job);
      await write(job, () => store.changes(db.updateTable('jobs').set(rest).where('id', '=', id)));
    },
    get: (id) => one(jobs().where('id', '=', id)),
    byName: (ownerId, name) => one(jobs().where('owner_id', '=', ownerId).where('name', '=', name)),
    named: (name, limit) => many(jobs().where('name', '=', name).orderBy('owner_id').limit(limit)),
    list: () => many(jobs().orderBy('name').orderBy('owner_id')),
    // Keyset pages over the (name, owner) and (owner, name) indexes; '' sorts before every name, so the first page needs
    // no other statement.
    async page({ ownerId, afterName = '', afterOwnerId, limit }, signal) {
      signal?.throwIfAborted();
      if (ownerId !== undefined)
        return many(jobs().where('owner_id', '=', ownerId).where('name', '>', afterName).orderBy('name').limit(limit));
      const after =
        afterOwnerId === undefined
          ? jobs().where('name', '>', afterName)
          : jobs().where((eb) => eb(eb.refTuple('name', 'owner_id'), '>', eb.tuple(afterName, afterOwnerId)));
      return many(after.orderBy('name').orderBy('owner_id').limit(limit));
    },
    async remove(id) {
      const [, removed] = await store.atomic([
        db.deleteFrom('job_runs').where('job_id', '=', id),
        db.deleteFrom('jobs').where('id', '=', id),
      ]);
      return (removed ?? 0) > 0;
    },
    async appendRun(run) {
      await store.changes(
        db.insertInto('job_runs').values({
          ts: run.ts,
          job_id: run.jobId,
          status: run.status,
          duration_ms: run.durationMs,
          summary: run.summary,
          error: run.error,
          tool_calls: run.toolCalls,
          est_turns_saved: run.estTurnsSaved,
          root_run_id: run.rootRunId,
        }),
      );
    },
    async runs(jobId, limit, signal) {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('job_runs')
        .selectAll()
        .where('job_id', '=', jobId)
        .orderBy('seq', 'desc')
        .limit(limit);
      return (await store.rows(query)).map(toRun);
    },
  };
}
