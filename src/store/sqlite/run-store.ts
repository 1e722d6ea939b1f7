// SQLite implementation of the RunPort: the durable record of runs (spawns, cron fires, webhooks), their owners and outcomes.
import { runNotFound } from '../../errors.js';
import { ORPHANED_RUN_ERROR, type RunPort } from '../ports/index.js';
import { RUN_COLUMNS, toRunRecord, type RunRow } from '../rows/run-rows.js';
import type { SqliteDatabase } from './database.js';
import { buildWhere } from './where.js';

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
  const owners = db.prepare<[], { owner_instance: string | null }>(
    "SELECT DISTINCT owner_instance FROM runs WHERE status = 'running'",
  );
  const orphanTx = db.transaction((ownerList: readonly (string | null)[], now: number): number => {
    let count = 0;
    for (const owner of ownerList) {
      count += (
        owner === null ? orphanUnowned.run(now, ORPHANED_RUN_ERROR) : orphanOwned.run(now, ORPHANED_RUN_ERROR, owner)
      ).changes;
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
      return row === undefined ? undefined : toRunRecord(row);
    },
    async list({ status, sinceMs, rootRunId, kind, limit }, signal) {
      signal?.throwIfAborted();
      const where = buildWhere([
        ['status', '=', status],
        ['started_at', '>=', sinceMs],
        ['root_run_id', '=', rootRunId],
        ['kind', '=', kind],
      ]);
      const limitSql = limit === undefined ? '' : ' LIMIT ?';
      const values = limit === undefined ? where.values : [...where.values, limit];
      const rows = db
        .prepare<unknown[], RunRow>(
          `SELECT ${RUN_COLUMNS} FROM runs ${where.sql} ORDER BY started_at DESC, run_id${limitSql}`,
        )
        .all(...values);
      return rows.map(toRunRecord);
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
