// PostgreSQL implementation of the ApprovalPort: approval requests and their resolutions in one table.
import type { ApprovalPort } from '../ports/index.js';
import { APPROVAL_COLUMNS, toApprovalRecord, type ApprovalRow } from '../rows/approval-rows.js';
import type { Queryable } from './pool.js';

export function createPostgresApprovalPort(db: Queryable): ApprovalPort {
  return {
    async create(request) {
      // The arguments are kept as the JSON text they were given as (JSONB would reorder keys and drop duplicates).
      await db.query(
        `INSERT INTO approval_requests (${APPROVAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        [
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
        ],
      );
    },
    async get(id) {
      const row = (await db.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approval_requests WHERE id = $1`, [id]))
        .rows[0];
      return row === undefined ? undefined : toApprovalRecord(row);
    },
    async listPending({ sessionKey }, signal) {
      signal?.throwIfAborted();
      const result = await db.query<ApprovalRow>(
        `SELECT ${APPROVAL_COLUMNS} FROM approval_requests WHERE status = 'pending' AND ($1::text IS NULL OR session_key = $1) ORDER BY requested_at, id`,
        [sessionKey ?? null],
      );
      return result.rows.map(toApprovalRecord);
    },
    // The status check in the statement itself makes the first resolver the only one that changes the row.
    async resolve(id, { approved, resolvedAt, resolvedBy, reason }) {
      const result = await db.query(
        "UPDATE approval_requests SET status = $1, resolved_at = $2, resolved_by = $3, reason = $4 WHERE id = $5 AND status = 'pending'",
        [approved ? 'approved' : 'denied', resolvedAt, resolvedBy, reason, id],
      );
      return result.rowCount === 1;
    },
  };
}
