// Who may use a session (DESIGN §3): its owner (the token id that created it), or any caller whose token grants admin.
import type { SessionCaller } from '../agents/index.js';
import { sessionForbidden } from '../errors.js';
import { grantsMethodScope, type Caller } from '../server/index.js';
import type { SessionRecord } from '../store/index.js';

/**
 * The owner of sessions created by signed webhooks. Token ids never contain ':' (config/schema.ts), so no token
 * can be this owner, and webhook sessions are reachable by admin callers only.
 */
export const WEBHOOK_OWNER_ID = 'system:webhook';

export const WEBHOOK_CALLER: SessionCaller = { clientId: WEBHOOK_OWNER_ID, isAdmin: false };

export function sessionCallerOf(caller: Caller): SessionCaller {
  // The admin scope is the same over every transport; only rpc differs for `ws` tokens.
  return { clientId: caller.clientId, isAdmin: grantsMethodScope(caller, 'admin', 'http') };
}

/** A session without an owner (created before owners were recorded, with no requester) is the admins' alone. */
export function canAccessSession(session: Pick<SessionRecord, 'ownerId'>, caller: SessionCaller): boolean {
  return caller.isAdmin || (session.ownerId !== null && session.ownerId === caller.clientId);
}

/**
 * Throws `forbidden` unless `caller` may continue, read or reset `session`. Every turn passes here before it
 * writes anything (TurnService, where the session is ensured), so a refusal leaves the session untouched.
 */
export function assertSessionAccess(session: Pick<SessionRecord, 'sessionKey' | 'ownerId'>, caller: SessionCaller): void {
  if (!canAccessSession(session, caller)) throw sessionForbidden(session.sessionKey);
}
