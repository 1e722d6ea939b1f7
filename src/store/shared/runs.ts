// The RunPort on both dialects: the durable record of runs (spawns, cron fires, webhooks), their owners and outcomes.
import { runNotFound } from '../../errors.js';
import {
  ORPHANED_RUN_ERROR,
  RUN_KINDS,
  RUN_STATUSES,
  type RunOutcome,
  type RunPort,
  type RunRecord,
} from '../index.js';
import { isAnyOf, prepared, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

type RunRow = Tables['runs'];

function toRunRecord(row: RunRow): RunRecord {
  // The table keeps input and output tokens; the total is their sum.
  const tokensUsed =
    row.input_tokens === null && row.output_tokens === null
      ? null
      : {
          input: row.input_tokens ?? 0,
          output: row.output_tokens ?? 0,
          total: (row.input_tokens ?? 0) + (row.output_tokens ?? 0),
        };
  return {
    runId: row.run_id,
    rootRunId: row.root_run_id,
    kind: RUN_KINDS.find((kind) => kind === row.kind) ?? 'spawn',
    parentKey: row.parent_key,
    sessionKey: row.session_key,
    agentId: row.agent_id,
    task: row.task,
    status: RUN_STATUSES.find((status) => status === row.status) ?? 'running',
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

/** The columns an outcome sets. */
function outcomeColumns(outcome: RunOutcome) {
  return {
    status: outcome.status,
    completed_at: outcome.completedAt,
    response: outcome.response,
    input_tokens: outcome.tokensUsed?.input ?? null,
    output_tokens: outcome.tokensUsed?.output ?? null,
    cost_usd: outcome.costUsd,
    error: outcome.error,
  };
}

export function createRunPort(store: StoreDb): RunPort {
  const { db } = store;
  const running = () => db.updateTable('runs').where('status', '=', 'running');
  // Prepared: a background response records its run, finishes it and reads it back on the request path.
  const insert = prepared((row: RunRow) => db.insertInto('runs').values(row));
  const update = prepared((args: ReturnType<typeof outcomeColumns> & { runId: string }) => {
    const { runId, ...outcome } = args;
    return db.updateTable('runs').set(outcome).where('run_id', '=', runId);
  });
  const byId = prepared((args: { runId: string }) =>
    db.selectFrom('runs').selectAll().where('run_id', '=', args.runId),
  );
  return {
    async create(run) {
      await store.changes(
        insert({
          run_id: run.runId,
          root_run_id: run.rootRunId,
          kind: run.kind,
          parent_key: run.parentKey,
          session_key: run.sessionKey,
          agent_id: run.agentId,
          task: run.task,
          requested_by: run.requestedBy,
          started_at: run.startedAt,
          owner_instance: run.ownerInstance,
          heartbeat_at: run.heartbeatAt,
          ...outcomeColumns(run),
        }),
      );
    },
    async finish(runId, outcome) {
      if ((await store.changes(update({ ...outcomeColumns(outcome), runId }))) === 0) throw runNotFound(runId);
    },
    get: async (runId) => (await store.rows(byId({ runId }))).map(toRunRecord)[0],
    async list({ status, sinceMs, rootRunId, kind, limit }, signal) {
      signal?.throwIfAborted();
      let query = db.selectFrom('runs').selectAll();
      if (status !== undefined) query = query.where('status', '=', status);
      if (sinceMs !== undefined) query = query.where('started_at', '>=', sinceMs);
      if (rootRunId !== undefined) query = query.where('root_run_id', '=', rootRunId);
      if (kind !== undefined) query = query.where('kind', '=', kind);
      query = query.orderBy('started_at', 'desc').orderBy('run_id');
      return (await store.rows(limit === undefined ? query : query.limit(limit))).map(toRunRecord);
    },
    heartbeat: (ownerInstance, now) =>
      store.changes(running().set({ heartbeat_at: now }).where('owner_instance', '=', ownerInstance)),
    async runningOwners() {
      const rows = await store.rows(
        db.selectFrom('runs').select('owner_instance').distinct().where('status', '=', 'running'),
      );
      return rows.map((row) => row.owner_instance);
    },
    // One statement: the named owners and, when null is listed, the runs without one.
    markOrphaned(owners, now) {
      const named = owners.filter((owner): owner is string => owner !== null);
      const update = running()
        .set((eb) => ({
          status: 'orphaned',
          completed_at: now,
          error: eb.fn.coalesce('error', eb.val(ORPHANED_RUN_ERROR)),
        }))
        .where((eb) =>
          eb.or([
            isAnyOf(store, 'owner_instance', named),
            ...(owners.includes(null) ? [eb('owner_instance', 'is', null)] : []),
          ]),
        );
      return store.changes(update);
    },
  };
}
