// SQLite implementation of the ApprovalPort: approval requests and their resolutions in one table.
import type { ApprovalPort, ApprovalRequestRecord, ApprovalStatus } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';

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

function toStatus(value: string): ApprovalStatus {
  return value === 'approved' || value === 'denied' ? value : 'pending';
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toRecord(row: ApprovalRow): ApprovalRequestRecord {
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

export function createSqliteApprovalPort(db: SqliteDatabase): ApprovalPort {
  const insert = db.prepare(`INSERT INTO approval_requests (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const byId = db.prepare<[string], ApprovalRow>(`SELECT ${COLUMNS} FROM approval_requests WHERE id = ?`);
  const pendingAll = db.prepare<[], ApprovalRow>(`SELECT ${COLUMNS} FROM approval_requests WHERE status = 'pending' ORDER BY requested_at, id`);
  const pendingOfSession = db.prepare<[string], ApprovalRow>(
    `SELECT ${COLUMNS} FROM approval_requests WHERE status = 'pending' AND session_key = ? ORDER BY requested_at, id`,
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
      return row === undefined ? undefined : toRecord(row);
    },
    async listPending({ sessionKey }, signal) {
      signal?.throwIfAborted();
      return (sessionKey === undefined ? pendingAll.all() : pendingOfSession.all(sessionKey)).map(toRecord);
    },
    async resolve(id, { approved, resolvedAt, resolvedBy, reason }) {
      return resolvePending.run(approved ? 'approved' : 'denied', resolvedAt, resolvedBy, reason, id).changes === 1;
    },
  };
}
