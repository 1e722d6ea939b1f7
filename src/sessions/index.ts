// Sessions: the session.* methods (transcripts, resets, compaction, search) as a capability module, and the store seams.
import type { CapabilityModule } from '../capability.js';
import { sessionMethods } from './methods.js';
import { createSessionService, type SessionService, type SessionServiceDeps } from './session-service.js';

export {
  createSessionService,
  DEFAULT_COMPACT_KEEP_RECENT,
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

export interface SessionsModule extends CapabilityModule {
  readonly sessions: SessionService;
}

export function createSessionsModule(deps: SessionServiceDeps): SessionsModule {
  const sessions = createSessionService(deps);
  return { name: 'sessions', sessions, methods: sessionMethods({ sessions }) };
}
