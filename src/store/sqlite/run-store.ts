// SQLite implementation of the RunPort: the durable record of runs (spawns, cron fires, webhooks), their owners and outcomes.
import { runNotFound } from '../../errors.js';
import { ORPHANED_RUN_ERROR, RUN_KINDS, RUN_STATUSES, type RunKind, type RunPort, type RunRecord, type RunStatus } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { buildWhere } from './where.js';

interface RunRow {
  run_id: string;
  root_run_id: string;
  kind: string;
  parent_key: string | null;
  session_key: string;
  agent_id: string;
  task: string;
  status: string;
  requested_by: string | null;
  started_at: number;
  completed_at: number | null;
  response: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  error: string | null;
  owner_instance: string | null;
  heartbeat_at: number | null;
}

const RUN_COLUMNS =
  'run_id, root_run_id, kind, parent_key, session_key, agent_id, task, status, requested_by, started_at, completed_at, response, input_tokens, output_tokens, cost_usd, error, owner_instance, heartbeat_at';

function toStatus(value: string): RunStatus {
  return RUN_STATUSES.find((status) => status === value) ?? 'running';
}

function toKind(value: string): RunKind {
  return RUN_KINDS.find((kind) => kind === value) ?? 'spawn';
}

function toRecord(row: RunRow): RunRecord {
  // The table keeps input and output tokens; the total is their sum.
  const tokensUsed =
    row.input_tokens === null && row.output_tokens === null
      ? null
      : { input: row.input_tokens ?? 0, output: row.output_tokens ?? 0, total: (row.input_tokens ?? 0) + (row.output_tokens ?? 0) };
  return {
    runId: row.run_id,
    rootRunId: row.root_run_id,
    kind: toKind(row.kind),
    parentKey: row.parent_key,
    sessionKey: row.session_key,
    agentId: row.agent_id,
    task: row.task,
    status: toStatus(row.status),
    requestedBy: row.requested_by,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    response: row.response,
    tokensUsed,
    costUsd: row.cost_usd,
    error: row.error,
    ownerInstance: row.owner_instance,
    heartbeatAt: row.heartbeat_at,
  };
}

export function createSqliteRunPort(db: SqliteDatabase): RunPort {
  const insert = db.prepare(
    `INSERT INTO runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = db.prepare(
    `UPDATE runs SET status = ?, completed_at = ?, response = ?, input_tokens = ?, output_tokens = ?, cost_usd = ?, error = ?
     WHERE run_id = ?`,
  );
  const byId = db.prepare<[string], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = ?`);
  const orphanOwned = db.prepare(
    "UPDATE runs SET status = 'orphaned', completed_at = ?, error = COALESCE(error, ?) WHERE status = 'running' AND owner_instance = ?",
  );
  const orphanUnowned = db.prepare(
    "UPDATE runs SET status = 'orphaned', completed_at = ?, error = COALESCE(error, ?) WHERE status = 'running' AND owner_instance IS NULL",
  );
  const beat = db.prepare("UPDATE runs SET heartbeat_at = ? WHERE status = 'running' AND owner_instance = ?");
  const owners = db.prepare<[], { owner_instance: string | null }>("SELECT DISTINCT owner_instance FROM runs WHERE status = 'running'");
  const orphanTx = db.transaction((ownerList: readonly (string | null)[], now: number): number => {
    let count = 0;
    for (const owner of ownerList) {
      count += (owner === null ? orphanUnowned.run(now, ORPHANED_RUN_ERROR) : orphanOwned.run(now, ORPHANED_RUN_ERROR, owner)).changes;
    }
    return count;
  });

  return {
    async create(run) {
      insert.run(
        run.runId,
        run.rootRunId,
        run.kind,
        run.parentKey,
        run.sessionKey,
        run.agentId,
        run.task,
        run.status,
        run.requestedBy,
        run.startedAt,
        run.completedAt,
        run.response,
        run.tokensUsed?.input ?? null,
        run.tokensUsed?.output ?? null,
        run.costUsd,
        run.error,
        run.ownerInstance,
        run.heartbeatAt,
      );
    },
    async finish(runId, outcome) {
      const changed = update.run(
        outcome.status,
        outcome.completedAt,
        outcome.response,
        outcome.tokensUsed?.input ?? null,
        outcome.tokensUsed?.output ?? null,
        outcome.costUsd,
        outcome.error,
        runId,
      ).changes;
      if (changed === 0) throw runNotFound(runId);
    },
    async get(runId) {
      const row = byId.get(runId);
      return row === undefined ? undefined : toRecord(row);
    },
    async list({ status, sinceMs, rootRunId, kind, limit }, signal) {
      signal?.throwIfAborted();
      const where = buildWhere([['status', '=', status], ['started_at', '>=', sinceMs], ['root_run_id', '=', rootRunId], ['kind', '=', kind]]);
      const limitSql = limit === undefined ? '' : ' LIMIT ?';
      const values = limit === undefined ? where.values : [...where.values, limit];
      const rows = db.prepare<unknown[], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs ${where.sql} ORDER BY started_at DESC, run_id${limitSql}`).all(...values);
      return rows.map(toRecord);
    },
    async heartbeat(ownerInstance, now) {
      return beat.run(now, ownerInstance).changes;
    },
    async runningOwners() {
      return owners.all().map((row) => row.owner_instance);
    },
    async markOrphaned(ownerList, now) {
      return orphanTx(ownerList, now);
    },
  };
}
