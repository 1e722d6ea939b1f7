// Sessions: the session.* methods (transcripts, resets, compaction, search) as a capability module, the store seams, and
// session keys and owners (parsing and formatting keys, who may use a session), which every turn surface uses.
import type { CapabilityModule } from '../capability.js';
import { sessionMethods } from './methods.js';
import { createSessionService, type SessionService, type SessionServiceDeps } from './session-service.js';

export {
  createSessionService,
  DEFAULT_COMPACT_KEEP_RECENT,
  type SendTurn,
  type SendTurnRunner,
  type SessionService,
  type SessionServiceDeps,
  type SessionServiceOptions,
} from './session-service.js';
export { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, sessionMethods } from './methods.js';
export type {
  HistoryMessage,
  ResetConversationResult,
  SendResult,
  SessionExport,
  SessionListEntry,
  SessionSearchResult,
  SessionStatus,
  SessionTranscript,
} from './session-views.js';
export { SUMMARY_PREFIX, type CompactionResult } from './compaction.js';
export type { SessionKind, SessionListFilter, SessionPort, SessionRecord, SessionSearchHit } from './types.js';
export {
  channelOf,
  DEFAULT_TENANT,
  deriveSessionKind,
  formatSessionKey,
  makeSessionKey,
  MAX_KEY_PART_LENGTH,
  normalizeSessionKey,
  parseSessionKey,
  readSessionKey,
  sessionKeyObjectSchema,
  sessionKeyProblem,
  sessionKeyStringSchema,
  SUB_AGENT_CHANNEL,
  subAgentSessionKey,
} from './session-key.js';
export {
  assertKeyAllowed,
  assertSessionAccess,
  canAccessSession,
  sessionCallerOf,
  WEBHOOK_CALLER,
  WEBHOOK_OWNER_ID,
  type KeyGrants,
} from './session-access.js';
export type { SessionCaller } from '../agents/index.js';
export { sessionAgentId } from './session-agent.js';
export { readSessionUsage, type SessionUsage } from './session-usage.js';

export interface SessionsModule extends CapabilityModule {
  readonly sessions: SessionService;
}

export function createSessionsModule(deps: SessionServiceDeps): SessionsModule {
  const sessions = createSessionService(deps);
  return { name: 'sessions', sessions, methods: sessionMethods({ sessions }) };
}
