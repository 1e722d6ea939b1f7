// The ApprovalPort on both dialects: approval requests and their resolutions in one table.
import type { ApprovalPort, ApprovalRequestRecord, ApprovalStatus } from '../index.js';
import { type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

const toStatus = (value: string): ApprovalStatus => (value === 'approved' || value === 'denied' ? value : 'pending');

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toRecord(row: Tables['approval_requests']): ApprovalRequestRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    sessionKey: row.session_key,
    toolName: row.tool_name,
    args: parseArgs(row.args),
    argsDigest: row.args_digest,
    traceId: row.trace_id,
    rootRunId: row.root_run_id,
    requestedBy: row.requested_by,
    ownerInstance: row.owner_instance,
    status: toStatus(row.status),
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    resolvedAt: row.resolved_at,
    resolvedBy: row.resolved_by,
    reason: row.reason,
  };
}

export function createApprovalPort(store: StoreDb): ApprovalPort {
  const { db } = store;
  const requests = () => db.selectFrom('approval_requests').selectAll();
  return {
    async create(request) {
      await store.changes(
        db.insertInto('approval_requests').values({
          id: request.id,
          agent_id: request.agentId,
          session_key: request.sessionKey,
          tool_name: request.toolName,
          // Kept as the JSON text it was given as.
          args: JSON.stringify(request.args) ?? 'null',
          args_digest: request.argsDigest,
          trace_id: request.traceId,
          root_run_id: request.rootRunId,
          requested_by: request.requestedBy,
          owner_instance: request.ownerInstance,
          status: request.status,
          requested_at: request.requestedAt,
          expires_at: request.expiresAt,
          resolved_at: request.resolvedAt,
          resolved_by: request.resolvedBy,
          reason: request.reason,
        }),
      );
    },
    get: async (id) => (await store.rows(requests().where('id', '=', id))).map(toRecord)[0],
    async listPending({ sessionKey }, signal) {
      signal?.throwIfAborted();
      let query = requests().where('status', '=', 'pending');
      if (sessionKey !== undefined) query = query.where('session_key', '=', sessionKey);
      return (await store.rows(query.orderBy('requested_at').orderBy('id'))).map(toRecord);
    },
    async listOfTrace(traceId, limit, signal) {
      signal?.throwIfAborted();
      const query = requests().where('trace_id', '=', traceId).orderBy('requested_at').orderBy('id').limit(limit);
      return (await store.rows(query)).map(toRecord);
    },
    async listResolved({ limit, before }, signal) {
      signal?.throwIfAborted();
      let query = requests().where('status', '!=', 'pending').where('resolved_at', 'is not', null);
      if (before !== undefined) {
        query = query.where((eb) =>
          eb.or([
            eb('resolved_at', '<', before.ts),
            eb.and([eb('resolved_at', '=', before.ts), eb('id', '<', before.id)]),
          ]),
        );
      }
      return (await store.rows(query.orderBy('resolved_at', 'desc').orderBy('id', 'desc').limit(limit))).map(toRecord);
    },
    // The status check in the statement itself makes the first resolver the only one that changes the row.
    async resolve(id, { approved, resolvedAt, resolvedBy, reason }) {
      const update = db
        .updateTable('approval_requests')
        .set({ status: approved ? 'approved' : 'denied', resolved_at: resolvedAt, resolved_by: resolvedBy, reason })
        .where('id', '=', id)
        .where('status', '=', 'pending');
      return (await store.changes(update)) === 1;
    },
  };
}
