// The approval storage port: tool calls waiting for an operator, kept across restarts, and how each one ended.

export type ApprovalStatus = 'pending' | 'approved' | 'denied';

export interface ApprovalRequestRecord {
  id: string;
  agentId: string;
  sessionKey: string;
  toolName: string;
  /** The call's arguments, for the operator deciding on it (admin.approval.pending); never put in events or logs. */
  args: unknown;
  /** sha256 (hex) of the arguments' canonical JSON. */
  argsDigest: string;
  traceId: string;
  /** The run tree of the turn that asked; null for a plain turn. */
  rootRunId: string | null;
  /** The client id of the turn's caller. */
  requestedBy: string;
  /** The gateway instance whose turn waits on the request. */
  ownerInstance: string;
  status: ApprovalStatus;
  requestedAt: number;
  /** Epoch ms at which the request is denied unanswered; null waits until someone decides. */
  expiresAt: number | null;
  resolvedAt: number | null;
  resolvedBy: string | null;
  reason: string | null;
}

export interface ApprovalResolution {
  approved: boolean;
  resolvedAt: number;
  resolvedBy: string;
  reason: string | null;
}

export interface ApprovalPort {
  create(request: ApprovalRequestRecord): Promise<void>;
  get(id: string): Promise<ApprovalRequestRecord | undefined>;
  /** Pending requests, oldest first; only the session's when `sessionKey` is given. */
  listPending(filter: { sessionKey?: string }, signal?: AbortSignal): Promise<ApprovalRequestRecord[]>;
  /** Ends a pending request; false when it was not pending (already ended, or unknown), so exactly one resolver wins. */
  resolve(id: string, resolution: ApprovalResolution): Promise<boolean>;
  /** The requests one turn made, oldest first (requested_at, then id), at most `limit`. */
  listOfTrace(traceId: string, limit: number, signal?: AbortSignal): Promise<ApprovalRequestRecord[]>;
  /** Ended requests, newest decision first (resolved_at, then id, descending); `before` continues after that row. */
  listResolved(
    filter: { limit: number; before?: { ts: number; id: string } },
    signal?: AbortSignal,
  ): Promise<ApprovalRequestRecord[]>;
}
