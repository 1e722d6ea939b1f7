// What the session service returns to the session.* methods, and the optional layers it can be given.
import type { FinishReason, TokensUsed } from '../agents/types.js';
import type { TranscriptMessage } from './transcript.js';
import type { SessionKind } from './types.js';

/** The memory layer as reset_conversation needs it (spec rule 4); optional, as memory may not be wired. */
export interface SessionMemory {
  /** Deletes the memories sourced from `sessionKey`; returns how many were deleted. */
  deleteBySession(sessionKey: string, options: { agentId: string; tenantId: string; purgeDerived: boolean }): Promise<number>;
}

/** In-process state a turn engine may keep per session beyond the store; optional. */
export interface RuntimeSessions {
  /** Drops the live state of `sessionKey`; true when there was some. */
  destroy(sessionKey: string): boolean | Promise<boolean>;
}

export interface SendResult {
  sessionKey: string;
  agentId: string;
  response: string;
  tokensUsed: TokensUsed;
  finishReason: FinishReason;
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
  memoriesDeleted?: number;
  runtimeSessionDestroyed?: boolean;
}

export interface SessionStatus {
  model: string | null;
  agentName: string | null;
  tokensUsed: { totalTokens: number; totalCost: number };
  stepsExecuted: number;
  maxSteps: number | null;
}
