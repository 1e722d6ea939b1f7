// PostgreSQL implementation of the RunPort: the durable record of runs (spawns, cron fires, webhooks), their owners and outcomes.
import { runNotFound } from '../../errors.js';
import { ORPHANED_RUN_ERROR, type RunPort } from '../ports/index.js';
import { RUN_COLUMNS, toRunRecord, type RunRow } from '../rows/run-rows.js';
import type { Queryable } from './pool.js';
import { buildWhere, Params } from './where.js';

export function createPostgresRunPort(db: Queryable): RunPort {
  return {
    async create(run) {
      await db.query(
        `INSERT INTO runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
        [
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
        ],
      );
    },
    async finish(runId, outcome) {
      const result = await db.query(
        `UPDATE runs SET status = $1, completed_at = $2, response = $3, input_tokens = $4, output_tokens = $5, cost_usd = $6, error = $7
         WHERE run_id = $8`,
        [
          outcome.status,
          outcome.completedAt,
          outcome.response,
          outcome.tokensUsed?.input ?? null,
          outcome.tokensUsed?.output ?? null,
          outcome.costUsd,
          outcome.error,
          runId,
        ],
      );
      if ((result.rowCount ?? 0) === 0) throw runNotFound(runId);
    },
    async get(runId) {
      const row = (await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = $1`, [runId])).rows[0];
      return row === undefined ? undefined : toRunRecord(row);
    },
    async list({ status, sinceMs, rootRunId, kind, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['status', '=', status],
        ['started_at', '>=', sinceMs],
        ['root_run_id', '=', rootRunId],
        ['kind', '=', kind],
      ]);
      const limitSql = limit === undefined ? '' : ` LIMIT ${params.add(limit)}`;
      const rows = await db.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM runs ${where} ORDER BY started_at DESC, run_id${limitSql}`,
        params.values,
      );
      return rows.rows.map(toRunRecord);
    },
    async heartbeat(ownerInstance, now) {
      const result = await db.query(
        "UPDATE runs SET heartbeat_at = $1 WHERE status = 'running' AND owner_instance = $2",
        [now, ownerInstance],
      );
      return result.rowCount ?? 0;
    },
    async runningOwners() {
      const result = await db.query<{ owner_instance: string | null }>(
        "SELECT DISTINCT owner_instance FROM runs WHERE status = 'running'",
      );
      return result.rows.map((row) => row.owner_instance);
    },
    // One statement: the named owners and, when null is listed, the runs without one.
    async markOrphaned(owners, now) {
      const named = owners.filter((owner): owner is string => owner !== null);
      const result = await db.query(
        `UPDATE runs SET status = 'orphaned', completed_at = $1, error = COALESCE(error, $2)
         WHERE status = 'running' AND (owner_instance = ANY($3::text[]) OR ($4 AND owner_instance IS NULL))`,
        [now, ORPHANED_RUN_ERROR, named, owners.includes(null)],
      );
      return result.rowCount ?? 0;
    },
  };
}
