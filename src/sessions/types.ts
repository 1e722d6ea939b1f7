// Session and run records and the store seams they live behind (SQLite implementations are in store/).
import type { TranscriptMessage } from '../providers/index.js';

/** Object form used by agent.execute (spec: "Session keys"). */
export interface SessionKeyParts {
  tenantId: string;
  userId: string;
  channelId: string;
  peerId?: string;
}

export type SessionKind = 'dm' | 'group' | 'sub-agent';

export interface SessionRecord {
  sessionKey: string;
  agentId: string;
  tenantId: string;
  kind: SessionKind;
  createdAt: number;
  updatedAt: number;
  metadata: Record<string, unknown>;
  messageCount: number;
  /** The token id that created the session; null (admins only) for sessions older than owners. */
  ownerId: string | null;
}

export interface SessionSearchHit {
  sessionKey: string;
  agentId: string;
  channelType: string;
  snippet: string;
  score: number;
  timestamp: number;
}

export interface SessionListFilter {
  kind?: SessionKind;
  /** Epoch ms: only sessions updated at or after it. */
  updatedSince?: number;
  /** Only the sessions this client id owns. */
  ownedBy?: string;
  /** The newest `limit` sessions only. */
  limit?: number;
}

export interface SessionStore {
  get(sessionKey: string): SessionRecord | undefined;
  /** Creates the session when absent; `created` says whether it did. */
  ensure(session: Omit<SessionRecord, 'messageCount' | 'updatedAt'>): { session: SessionRecord; created: boolean };
  /** Appends in order, in one transaction; throws GatewayError `not_found` when the session does not exist. */
  append(sessionKey: string, messages: readonly TranscriptMessage[], now: number): void;
  /** Oldest first; `limit` keeps the newest `limit` messages. */
  history(sessionKey: string, limit?: number): TranscriptMessage[];
  /** Replaces the whole transcript (compaction); throws `not_found` like append. */
  replaceHistory(sessionKey: string, messages: readonly TranscriptMessage[], now: number): void;
  /** Newest update first. */
  list(filter: SessionListFilter): SessionRecord[];
  /** Deletes the session and its transcript; false when it did not exist. */
  delete(sessionKey: string): boolean;
  /** Deletes every message, keeps the session row and metadata; returns how many were deleted. */
  clearMessages(sessionKey: string, now: number): number;
  /** Replaces the metadata object; false when the session does not exist. */
  updateMetadata(sessionKey: string, metadata: Record<string, unknown>, now: number): boolean;
  /**
   * Full-text search over message content, best match first (one hit per session, its best message);
   * `ownedBy` limits it to that client's sessions inside the query, so `limit` counts only those.
   */
  search(query: string, limit: number, ownedBy?: string): SessionSearchHit[];
  /** Cached tool approval decisions of a session (cleared by session.reset). */
  clearApprovalDecisions(sessionKey: string): number;
}

export type RunStatus = 'running' | 'completed' | 'failed' | 'orphaned';

export interface RunRecord {
  runId: string;
  rootRunId: string;
  parentKey: string | null;
  sessionKey: string;
  agentId: string;
  task: string;
  status: RunStatus;
  requestedBy: string | null;
  startedAt: number;
  completedAt: number | null;
  response: string | null;
  tokensUsed: { input: number; output: number; total: number } | null;
  costUsd: number | null;
  error: string | null;
}

export interface RunStore {
  create(run: RunRecord): void;
  finish(runId: string, outcome: Pick<RunRecord, 'status' | 'completedAt' | 'response' | 'tokensUsed' | 'costUsd' | 'error'>): void;
  get(runId: string): RunRecord | undefined;
  list(filter: { status?: RunStatus; sinceMs?: number }): RunRecord[];
  /** At startup: every run still `running` belongs to a dead process and becomes `orphaned`. Returns the count. */
  markUnfinishedOrphaned(now: number): number;
}
