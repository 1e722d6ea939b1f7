// The session storage port: session rows, their transcripts, usage totals and plain-text search, backend-neutral.

export type SessionKind = 'dm' | 'group' | 'sub-agent';

export interface TranscriptToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** The provider-neutral transcript message stored per session and sent to the model layer. */
export type TranscriptMessage =
  | { role: 'system'; content: string; timestamp: number }
  | { role: 'user'; content: string; timestamp: number }
  | { role: 'assistant'; content: string; toolCalls?: TranscriptToolCall[]; timestamp: number }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError: boolean; timestamp: number };

/** Running totals of a session; read back as `metadata.usage` once a turn was recorded. */
export interface SessionUsage {
  totalTokens: number;
  totalCost: number;
  stepsExecuted: number;
  turns: number;
}

/**
 * How a session's last turn ended, as session.list shows and filters it: `completed` (the model finished or handed
 * back client tool calls), `truncated` (cut at a length, step or context limit), `error` (a provider or internal
 * failure, an open circuit), `budget_exceeded` and `cancelled` (the caller aborted).
 */
export type SessionOutcome = 'completed' | 'truncated' | 'error' | 'budget_exceeded' | 'cancelled';

export const SESSION_OUTCOMES: readonly SessionOutcome[] = [
  'completed',
  'truncated',
  'error',
  'budget_exceeded',
  'cancelled',
];

/** What one finished turn adds to its session; `requestedBy` becomes `metadata.requestedBy`. */
export interface TurnUsage {
  totalTokens: number;
  totalCost: number;
  stepsExecuted: number;
  requestedBy: string;
  /** How the turn ended; becomes the session's lastOutcome (absent: the last one stays). */
  outcome?: SessionOutcome;
}

export interface SessionRecord {
  sessionKey: string;
  agentId: string;
  tenantId: string;
  kind: SessionKind;
  createdAt: number;
  updatedAt: number;
  /** Free-form; `usage` and `requestedBy` reflect the last recordTurnUsage (a `usage` written here is ignored). */
  metadata: Record<string, unknown>;
  messageCount: number;
  /** The token id that created the session; null (admins only) for sessions older than owners. */
  ownerId: string | null;
  /** Epoch ms the session expired (idle past sessions.idleTtlMs); absent while it has not. */
  expiredAt?: number;
  /** Epoch ms a finished sub-agent session was archived (runs.archiveAfterMs); absent while it has not. */
  archivedAt?: number;
  /** How its last recorded turn ended; absent before the first (or for turns recorded without one). */
  lastOutcome?: SessionOutcome;
}

/** A sub-agent session the lifecycle sweep archived, with the run that spawned it. */
export interface ArchivedSubAgent {
  runId: string;
  sessionKey: string;
}

export interface SessionSearchHit {
  sessionKey: string;
  agentId: string;
  /** `metadata.channelType` when the session set one; null otherwise (the caller reads the key's channel). */
  channelType: string | null;
  /** The best matching message, matched terms in [brackets]. */
  snippet: string;
  /** Higher is a better match. */
  score: number;
  timestamp: number;
}

export interface SessionListFilter {
  kind?: SessionKind;
  /** Epoch ms: only sessions updated at or after it. */
  updatedSince?: number;
  /** Epoch ms: only sessions updated at or before it. */
  updatedBefore?: number;
  /** Only the sessions on this channel (the key's channel part). */
  channelId?: string;
  /** Leaves the sessions on these channels out. */
  excludeChannels?: readonly string[];
  /** Only the sessions whose last turn ended so. */
  outcome?: SessionOutcome;
  /** Only the sessions this client id owns. */
  ownedBy?: string;
  /** Only the sessions of this agent. */
  agentId?: string;
  /** false: only sessions not archived; true: only archived ones; absent: both. */
  archived?: boolean;
  /** Keyset pagination: only the sessions listed after this one in the list's order (updatedAt desc, sessionKey asc). */
  after?: SessionListCursor;
  /** The newest `limit` sessions only. */
  limit?: number;
}

/** What countByChannel narrows by: a list filter without its page and left-out channels. */
export type SessionCountFilter = Omit<SessionListFilter, 'after' | 'limit' | 'excludeChannels'>;

/** How many sessions match on one channel; `channelId` null for keys without a channel part. */
export interface SessionChannelCount {
  channelId: string | null;
  count: number;
}

/** Where a page of session.list ended: the last session's update time and key. */
export interface SessionListCursor {
  updatedAt: number;
  sessionKey: string;
}

export interface SessionPort {
  get(sessionKey: string): Promise<SessionRecord | undefined>;
  /** Creates the session when absent; `created` says whether it did. */
  ensure(
    session: Omit<SessionRecord, 'messageCount' | 'updatedAt'>,
  ): Promise<{ session: SessionRecord; created: boolean }>;
  /**
   * Appends in order, atomically; rejects with GatewayError `not_found` when the session does not exist. Resolves
   * only once the write is committed (a process killed afterwards keeps it); a backend may commit it together with
   * other writes (SQLite: one transaction per event-loop turn). Every read of the port sees it as soon as it is called.
   */
  append(sessionKey: string, messages: readonly TranscriptMessage[], now: number): Promise<void>;
  /** Oldest first; `limit` keeps the newest `limit` messages. */
  history(sessionKey: string, limit?: number, signal?: AbortSignal): Promise<TranscriptMessage[]>;
  /** Replaces the whole transcript (compaction); rejects with `not_found` like append. */
  replaceHistory(sessionKey: string, messages: readonly TranscriptMessage[], now: number): Promise<void>;
  /** Newest update first. */
  list(filter: SessionListFilter, signal?: AbortSignal): Promise<SessionRecord[]>;
  /** How many sessions match `filter`, per channel (channels with none are left out); one query. */
  countByChannel(filter: SessionCountFilter, signal?: AbortSignal): Promise<SessionChannelCount[]>;
  /** Deletes the session and its transcript; false when it did not exist. */
  delete(sessionKey: string): Promise<boolean>;
  /** Deletes every message, keeps the session row and metadata; resolves to how many were deleted. */
  clearMessages(sessionKey: string, now: number): Promise<number>;
  /** Replaces the metadata object; false when the session does not exist. */
  updateMetadata(sessionKey: string, metadata: Record<string, unknown>, now: number): Promise<boolean>;
  /** Adds one turn to the session's usage totals and sets its last requester, atomically; false when absent. Committed like append. */
  recordTurnUsage(sessionKey: string, usage: TurnUsage, now: number): Promise<boolean>;
  /**
   * Searches message content for the user's plain-text query (every word must match), best match first, one hit
   * per session (its best message); `ownedBy` limits it to that client's sessions before `limit` is counted.
   */
  search(query: string, limit: number, ownedBy?: string, signal?: AbortSignal): Promise<SessionSearchHit[]>;
  /**
   * Marks at most `limit` sessions last updated before `idleBefore` and not expired yet as expired at `now`, the longest
   * idle first; resolves to their keys. Each session is marked by one call only, however many run at once.
   */
  expireIdle(idleBefore: number, now: number, limit: number): Promise<string[]>;
  /**
   * Archives at most `limit` sub-agent sessions (not archived yet) whose spawn run finished before `finishedBefore`,
   * at `now`, the earliest finished first; resolves to them with their run ids, each once.
   */
  archiveFinishedSubAgents(finishedBefore: number, now: number, limit: number): Promise<ArchivedSubAgent[]>;
  /** Deletes at most `limit` sessions that expired before `expiredBefore`, with their transcripts; resolves to how many. */
  deleteExpired(expiredBefore: number, limit: number): Promise<number>;
  /**
   * Starts an expired session over on its key, atomically: its transcript, usage and times move to a new session
   * `archiveKey` (still expired, so deleteExpired removes it in its time); the session keeps its agent, owner and
   * metadata, with no messages, no usage, live again from `now`. False (nothing written) when it is not expired.
   */
  restartExpired(sessionKey: string, archiveKey: string, now: number): Promise<boolean>;
}
