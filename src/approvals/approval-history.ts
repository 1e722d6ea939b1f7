// admin.approval.history: the operators' decisions on gated tool calls, newest first, paged by an opaque cursor.
import { decodeTimeCursor, nextTimeCursor } from '../obs/index.js';
import type { ApprovalPort, ApprovalRequestRecord } from '../store/index.js';

/** Decisions per page: default and maximum (larger values are clamped). */
export const APPROVAL_HISTORY_DEFAULT_LIMIT = 50;
export const APPROVAL_HISTORY_MAX_LIMIT = 500;

/** One decision: what was asked (never its arguments), who decided, when, and why. */
export interface ApprovalDecision {
  id: string;
  agentId: string;
  sessionKey: string;
  toolName: string;
  argsDigest: string;
  traceId: string;
  requestedBy: string;
  requestedAt: number;
  decision: 'approved' | 'denied';
  /** The deciding token's id, or the gateway's own cause (timeout, restart, …) for a request nobody answered. */
  resolvedBy: string;
  resolvedAt: number;
  waitMs: number;
  reason: string | null;
}

export interface ApprovalHistory {
  page(query: {
    limit?: number;
    cursor?: string;
  }): Promise<{ decisions: ApprovalDecision[]; nextCursor: string | null }>;
}

function toDecision(request: ApprovalRequestRecord): ApprovalDecision {
  const resolvedAt = request.resolvedAt ?? request.requestedAt;
  return {
    id: request.id,
    agentId: request.agentId,
    sessionKey: request.sessionKey,
    toolName: request.toolName,
    argsDigest: request.argsDigest,
    traceId: request.traceId,
    requestedBy: request.requestedBy,
    requestedAt: request.requestedAt,
    decision: request.status === 'approved' ? 'approved' : 'denied',
    resolvedBy: request.resolvedBy ?? 'system',
    resolvedAt,
    waitMs: Math.max(0, resolvedAt - request.requestedAt),
    reason: request.reason,
  };
}

export function createApprovalHistory(port: Pick<ApprovalPort, 'listResolved'>): ApprovalHistory {
  return {
    async page({ limit = APPROVAL_HISTORY_DEFAULT_LIMIT, cursor }) {
      const before = cursor === undefined ? undefined : decodeTimeCursor(cursor);
      const clamped = Math.min(limit, APPROVAL_HISTORY_MAX_LIMIT);
      const decisions = (await port.listResolved({ limit: clamped, ...(before === undefined ? {} : { before }) })).map(
        toDecision,
      );
      return {
        decisions,
        nextCursor: nextTimeCursor(decisions, clamped, (decision) => ({ ts: decision.resolvedAt, id: decision.id })),
      };
    },
  };
}
