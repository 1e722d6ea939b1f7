// SQLite implementation of the ApprovalPort: approval requests and their resolutions in one table.
import type { ApprovalPort } from '../ports/index.js';
import { APPROVAL_COLUMNS, toApprovalRecord, type ApprovalRow } from '../rows/approval-rows.js';
import type { SqliteDatabase } from './database.js';

export function createSqliteApprovalPort(db: SqliteDatabase): ApprovalPort {
  const insert = db.prepare(
    `INSERT INTO approval_requests (${APPROVAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byId = db.prepare<[string], ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approval_requests WHERE id = ?`);
  const pendingAll = db.prepare<[], ApprovalRow>(
    `SELECT ${APPROVAL_COLUMNS} FROM approval_requests WHERE status = 'pending' ORDER BY requested_at, id`,
  );
  const pendingOfSession = db.prepare<[string], ApprovalRow>(
    `SELECT ${APPROVAL_COLUMNS} FROM approval_requests WHERE status = 'pending' AND session_key = ? ORDER BY requested_at, id`,
  );
  // The status check in the statement itself makes the first resolver the only one that changes the row.
  const resolvePending = db.prepare(
    "UPDATE approval_requests SET status = ?, resolved_at = ?, resolved_by = ?, reason = ? WHERE id = ? AND status = 'pending'",
  );

  return {
    async create(request) {
      insert.run(
        request.id,
        request.agentId,
        request.sessionKey,
        request.toolName,
        JSON.stringify(request.args) ?? 'null',
        request.argsDigest,
        request.traceId,
        request.rootRunId,
        request.requestedBy,
        request.ownerInstance,
        request.status,
        request.requestedAt,
        request.expiresAt,
        request.resolvedAt,
        request.resolvedBy,
        request.reason,
      );
    },
    async get(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toApprovalRecord(row);
    },
    async listPending({ sessionKey }, signal) {
      signal?.throwIfAborted();
      return (sessionKey === undefined ? pendingAll.all() : pendingOfSession.all(sessionKey)).map(toApprovalRecord);
    },
    async resolve(id, { approved, resolvedAt, resolvedBy, reason }) {
      return resolvePending.run(approved ? 'approved' : 'denied', resolvedAt, resolvedBy, reason, id).changes === 1;
    },
  };
}
