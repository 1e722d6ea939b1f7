// PostgreSQL implementation of the ApprovalPort: approval requests and their resolutions in one table.
import type { ApprovalPort, ApprovalRequestRecord, ApprovalStatus } from '../ports/index.js';
import type { Queryable } from './pool.js';

interface ApprovalRow {
  id: string;
  agent_id: string;
  session_key: string;
  tool_name: string;
  args: string;
  args_digest: string;
  trace_id: string;
  root_run_id: string | null;
  requested_by: string;
  owner_instance: string;
  status: string;
  requested_at: number;
  expires_at: number | null;
  resolved_at: number | null;
  resolved_by: string | null;
  reason: string | null;
}

const COLUMNS =
  'id, agent_id, session_key, tool_name, args, args_digest, trace_id, root_run_id, requested_by, owner_instance, status, requested_at, expires_at, resolved_at, resolved_by, reason';

const toStatus = (value: string): ApprovalStatus => (value === 'approved' || value === 'denied' ? value : 'pending');

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toRecord(row: ApprovalRow): ApprovalRequestRecord {
  return {
    id: row.id, agentId: row.agent_id, sessionKey: row.session_key, toolName: row.tool_name, args: parseArgs(row.args),
    argsDigest: row.args_digest, traceId: row.trace_id, rootRunId: row.root_run_id, requestedBy: row.requested_by,
    ownerInstance: row.owner_instance, status: toStatus(row.status), requestedAt: row.requested_at, expiresAt: row.expires_at,
    resolvedAt: row.resolved_at, resolvedBy: row.resolved_by, reason: row.reason,
  };
}

export function createPostgresApprovalPort(db: Queryable): ApprovalPort {
  return {
    async create(request) {
      // The arguments are kept as the JSON text they were given as (JSONB would reorder keys and drop duplicates).
      await db.query(`INSERT INTO approval_requests (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`, [
        request.id, request.agentId, request.sessionKey, request.toolName, JSON.stringify(request.args) ?? 'null',
        request.argsDigest, request.traceId, request.rootRunId, request.requestedBy, request.ownerInstance, request.status,
        request.requestedAt, request.expiresAt, request.resolvedAt, request.resolvedBy, request.reason,
      ]);
    },
    async get(id) {
      const row = (await db.query<ApprovalRow>(`SELECT ${COLUMNS} FROM approval_requests WHERE id = $1`, [id])).rows[0];
      return row === undefined ? undefined : toRecord(row);
    },
    async listPending({ sessionKey }, signal) {
      signal?.throwIfAborted();
      const result = await db.query<ApprovalRow>(
        `SELECT ${COLUMNS} FROM approval_requests WHERE status = 'pending' AND ($1::text IS NULL OR session_key = $1) ORDER BY requested_at, id`,
        [sessionKey ?? null],
      );
      return result.rows.map(toRecord);
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
