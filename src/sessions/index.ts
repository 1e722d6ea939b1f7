// Sessions: the session.* methods (transcripts, resets, compaction, search) as a capability module, the store seams, and
// session keys and owners (parsing and formatting keys, who may use a session), which every turn surface uses.
import type { MethodModule } from '../rpc/types.js';
import { sessionMethods } from './methods.js';
import { createSessionService, type SessionService, type SessionServiceDeps } from './session-service.js';

export {
  createSessionService,
  type SessionService,
  type SessionServiceDeps,
  type SessionServiceOptions,
} from './session-service.js';
export { sessionMethods } from './methods.js';
export { SUMMARY_PREFIX } from './compaction.js';
export type { SessionPort, SessionRecord } from './types.js';
export {
  channelOf,
  DEFAULT_TENANT,
  deriveSessionKind,
  formatSessionKey,
  makeSessionKey,
  parseSessionKey,
  readSessionKey,
  sessionKeyObjectSchema,
  sessionKeyProblem,
  sessionKeyStringSchema,
  subAgentSessionKey,
} from './session-key.js';
export {
  assertKeyAllowed,
  assertSessionAccess,
  sessionCallerOf,
  WEBHOOK_CALLER,
  WEBHOOK_OWNER_ID,
  type KeyGrants,
} from './session-access.js';
export { sessionAgentId } from './session-agent.js';
export { readSessionUsage } from './session-usage.js';

export interface SessionsModule extends MethodModule {
  readonly sessions: SessionService;
}

export function createSessionsModule(deps: SessionServiceDeps): SessionsModule {
  const sessions = createSessionService(deps);
  return { name: 'sessions', sessions, methods: sessionMethods({ sessions }) };
}
