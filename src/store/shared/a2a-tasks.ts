// The A2aTaskPort on both dialects: the A2A tasks by id, listed per owner and agent newest update first.
import type { A2aTaskPort, A2aTaskRecord } from '../index.js';
import { first, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

type TaskRow = Tables['a2a_tasks'];

const toRecord = (row: TaskRow): A2aTaskRecord => ({
  taskId: row.task_id,
  ownerId: row.owner_id,
  agentId: row.agent_id,
  contextId: row.context_id,
  state: Number(row.state),
  updatedAt: Number(row.updated_at),
  isTerminal: Number(row.is_terminal) === 1,
  body: row.body,
});

export function createA2aTaskPort(store: StoreDb): A2aTaskPort {
  const { db } = store;
  return {
    async put(record) {
      const row: TaskRow = {
        task_id: record.taskId,
        owner_id: record.ownerId,
        agent_id: record.agentId,
        context_id: record.contextId,
        state: record.state,
        updated_at: record.updatedAt,
        is_terminal: record.isTerminal ? 1 : 0,
        body: record.body,
      };
      const { task_id: _key, ...changed } = row;
      await store.changes(
        db
          .insertInto('a2a_tasks')
          .values(row)
          .onConflict((conflict) => conflict.column('task_id').doUpdateSet(changed)),
      );
    },
    async get(taskId, ownerId, agentId) {
      const row = await first(
        store,
        db
          .selectFrom('a2a_tasks')
          .selectAll()
          .where('task_id', '=', taskId)
          .where('owner_id', '=', ownerId)
          .where('agent_id', '=', agentId),
      );
      return row === undefined ? undefined : toRecord(row);
    },
    async list(ownerId, agentId, query) {
      let matching = db.selectFrom('a2a_tasks').where('owner_id', '=', ownerId).where('agent_id', '=', agentId);
      if (query.contextId !== undefined) matching = matching.where('context_id', '=', query.contextId);
      if (query.state !== undefined) matching = matching.where('state', '=', query.state);
      if (query.updatedAfter !== undefined) matching = matching.where('updated_at', '>', query.updatedAfter);
      let page = matching.selectAll();
      const { after } = query;
      if (after !== undefined)
        page = page.where((eb) =>
          eb.or([
            eb('updated_at', '<', after.updatedAt),
            eb.and([eb('updated_at', '=', after.updatedAt), eb('task_id', '<', after.taskId)]),
          ]),
        );
      const [rows, counted] = await Promise.all([
        store.rows(page.orderBy('updated_at', 'desc').orderBy('task_id', 'desc').limit(query.limit)),
        first(
          store,
          matching.select((eb) => eb.fn.countAll<number>().as('total')),
        ),
      ]);
      return { records: rows.map(toRecord), total: Number(counted?.total ?? 0) };
    },
    // One statement: the finished tasks older than the newest `keep` finished ones (a2a_tasks_finished).
    pruneFinished: (keep) =>
      store.changes(
        db
          .deleteFrom('a2a_tasks')
          .where('task_id', 'in', (sub) =>
            sub
              .selectFrom('a2a_tasks')
              .select('task_id')
              .where('is_terminal', '=', 1)
              .orderBy('updated_at', 'desc')
              .orderBy('task_id', 'desc')
              .limit(Number.MAX_SAFE_INTEGER)
              .offset(keep),
          ),
      ),
  };
}
