// The approvals table's row as both SQL stores read it, its column list, and how a row maps to an ApprovalRequestRecord.
import type { ApprovalRequestRecord, ApprovalStatus } from '../ports/index.js';

export interface ApprovalRow {
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

export const APPROVAL_COLUMNS =
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

export function toApprovalRecord(row: ApprovalRow): ApprovalRequestRecord {
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
