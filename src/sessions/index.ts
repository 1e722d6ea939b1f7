// Sessions: keys, owners, the session service behind session.*, the store seams and the per-session lock.
export {
  DEFAULT_TENANT,
  SUB_AGENT_CHANNEL,
  deriveSessionKind,
  formatSessionKey,
  normalizeSessionKey,
  parseSessionKey,
  sessionKeyObjectSchema,
  sessionKeyProblem,
  sessionKeyStringSchema,
  subAgentSessionKey,
} from './session-key.js';
export { createSessionService, type SessionService, type SessionServiceDeps, type SessionServiceOptions } from './session-service.js';
export type {
  HistoryMessage,
  ResetConversationResult,
  RuntimeSessions,
  SendResult,
  SessionExport,
  SessionListEntry,
  SessionMemory,
  SessionStatus,
  SessionTranscript,
} from './session-views.js';
export { createSessionLocks, type SessionLocks } from '../coordination/index.js';
export {
  assertSessionAccess,
  canAccessSession,
  sessionCallerOf,
  WEBHOOK_CALLER,
  WEBHOOK_OWNER_ID,
  type SessionCaller,
} from './session-access.js';
export { readSessionUsage, recordTurnUsage, trackSessionUsage, type SessionUsage } from './session-usage.js';
export { SUMMARY_PREFIX, type CompactionResult } from './compaction.js';
export type { Notify, RunStatusView, SpawnResult } from './sub-agent-runs.js';
export type {
  RunRecord,
  RunStatus,
  RunStore,
  SessionKeyParts,
  SessionKind,
  SessionListFilter,
  SessionRecord,
  SessionSearchHit,
  SessionStore,
} from './types.js';
export { estimateMessageTokens, estimateTokens, type TranscriptMessage, type TranscriptToolCall } from './transcript.js';
