// What the session service returns to the session.* methods.
import type { TranscriptMessage } from '../providers/index.js';
import type { SessionOutcome } from '../store/index.js';
import type { SessionKind, SessionSearchHit } from './types.js';

/** One session.search hit: the stored hit with the channel always named. */
export interface SessionSearchResult extends Omit<SessionSearchHit, 'channelType'> {
  channelType: string;
}

export interface SendResult {
  sessionKey: string;
  agentId: string;
  response: string;
  tokensUsed: { input: number; output: number; total: number };
  /** The turn's finish reason (stop, length, max_steps, error …). */
  finishReason: string;
}

export interface HistoryMessage {
  role: TranscriptMessage['role'];
  content: string;
  timestamp: number;
}

export interface SessionListEntry {
  sessionKey: string;
  agentId: string;
  messageCount: number;
  updatedAt: number;
  metadata: Record<string, unknown>;
  /** The token id that created the session; null (admins only) for sessions older than owners. */
  ownerId: string | null;
  /** The key's channel part; null for a key without one. */
  channelId: string | null;
  /** How its last turn ended; null before the first. */
  outcome: SessionOutcome | null;
  /** Input plus output tokens of every recorded turn. */
  tokens: number;
  /** The priced cost of every recorded turn, in US dollars. */
  costUsd: number;
  /** When the session expired (idle past sessions.idleTtlMs); absent while it has not. */
  expiredAt?: number;
  /** When the finished sub-agent session was archived; listed only by kind `archived`. */
  archivedAt?: number;
}

export interface SessionListQuery {
  /** `archived`: the archived sub-agent sessions, which every other kind leaves out. */
  kind?: SessionKind | 'all' | 'archived';
  sinceMinutes?: number;
  agentId?: string;
  /** Only sessions on this channel; naming a /v1 channel lists its sessions. */
  channelId?: string;
  /** Only sessions whose last turn ended so. */
  outcome?: SessionOutcome;
  /** Epoch ms bounds of the update time, both included. */
  fromMs?: number;
  toMs?: number;
  /** Lists the /v1 sessions too (left out and counted apart by default). */
  includeApi?: boolean;
  /** Sessions per page. */
  limit: number;
  /** The previous page's nextCursor. */
  cursor?: string;
}

export interface SessionListPage {
  sessions: SessionListEntry[];
  /** Pass as `cursor` for the next page; null when this page is the last. */
  nextCursor: string | null;
  /** How many sessions match the filters, over every page. */
  total: number;
  /** Per /v1 channel, how many matching sessions were left out (includeApi not set); {} when none were. */
  hiddenApiSessions: Record<string, number>;
}

export interface SessionExport {
  sessionKey: string;
  messages: TranscriptMessage[];
  metadata: Record<string, unknown>;
  messageCount: number;
  createdAt: number;
  updatedAt: number;
}

/** The final copy session.delete returns: the export plus the session's agent and kind. */
export interface SessionTranscript extends SessionExport {
  agentId: string;
  kind: SessionKind;
}

export interface ResetConversationResult {
  sessionKey: string;
  lcdRowsDeleted: number;
  sessionMessagesCleared: number;
  /** Present only when memory was asked for and a memory store is wired (spec rule 5). */
  memoriesDeleted?: number;
}

export interface SessionStatus {
  model: string | null;
  agentName: string | null;
  tokensUsed: { totalTokens: number; totalCost: number };
  stepsExecuted: number;
  maxSteps: number | null;
}
