// Sessions: the session.* methods (transcripts, resets, compaction, search) as a capability module, the store seams, and
// session keys and owners (parsing and formatting keys, who may use a session), which every turn surface uses.
import type { MethodModule } from '../rpc/types.js';
import { sessionMethods } from './methods.js';
import { createSessionLifecycle, type SessionLifecycleDeps } from './session-lifecycle.js';

export { lifecycleSettings } from './session-lifecycle.js';
import { createSessionService, type SessionService, type SessionServiceDeps } from './session-service.js';

export {
  createSessionService,
  type SessionService,
  type SessionServiceDeps,
  type SessionServiceOptions,
} from './session-service.js';
export { sessionMethods } from './methods.js';
export { archiveKeyOf } from './session-expiry.js';
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
export { OPENAI_CHANNEL_ID } from './session-list.js';

export interface SessionsModule extends MethodModule {
  readonly sessions: SessionService;
}

export interface SessionsModuleDeps extends SessionServiceDeps {
  /** The lifecycle sweep's events and settings; without them sessions never expire nor are archived. */
  lifecycle?: Pick<SessionLifecycleDeps, 'events' | 'settings'>;
}

export function createSessionsModule({ lifecycle, ...deps }: SessionsModuleDeps): SessionsModule {
  const sessions = createSessionService(deps);
  const sweep =
    lifecycle === undefined
      ? undefined
      : createSessionLifecycle({ ...lifecycle, store: deps.store, now: deps.now, log: deps.log });
  return {
    name: 'sessions',
    sessions,
    methods: sessionMethods({ sessions }),
    start: () => sweep?.start(),
    stop: () => sweep?.stop(),
  };
}
