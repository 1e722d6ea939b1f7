// Who may use a session (DESIGN §3): its owner (the token id that created it), or any caller whose token grants admin.
import type { ParsedSessionKey } from './types.js';
import type { Caller } from '../server/types.js';
import type { SessionCaller } from '../agents/index.js';
import { sessionForbidden, tenantForbidden } from '../errors.js';
import { grantsMethodScope, type TokenDirectory } from '../server/index.js';
import type { SessionRecord } from '../store/index.js';
import { DEFAULT_TENANT } from './session-key.js';

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
export function assertSessionAccess(
  session: Pick<SessionRecord, 'sessionKey' | 'ownerId'>,
  caller: SessionCaller,
): void {
  if (!canAccessSession(session, caller)) throw sessionForbidden(session.sessionKey);
}

/** What the key check needs to know of tokens: each is a lookup in memory on most turns (server/token-directory.ts). */
export type KeyGrants = Pick<TokenDirectory, 'grantOf' | 'tenantsOf'>;

/**
 * Throws `forbidden` unless `caller` may hold a session of this key at all, before any owner check: a non-admin token
 * stays in tenant `default` and the tenants config gives it (gateway.tokens[].tenants), and a key whose user part is
 * another token's id is that token's: its default conversations (`default:<tokenId>:rpc`, `:rest`, `:audio`) can
 * then never be created first by someone else, which would lock it out of them. Admin callers may open any key.
 *
 * A key the gateway made with a fresh id (`isKeyUnique`: a /v1 completion's `default:openai-api:openai:<id>`, a webhook
 * run's `default:<source>:webhook:<runId>`) can squat nothing, so its user part is not checked: a token that happens
 * to be named `openai-api`, or a webhook source named like a token, must not refuse those turns.
 */
export async function assertKeyAllowed(
  { sessionKey, keyParts }: ParsedSessionKey,
  caller: SessionCaller,
  grants: KeyGrants,
  isKeyUnique = false,
): Promise<void> {
  if (caller.isAdmin) return;
  if (keyParts.tenantId !== DEFAULT_TENANT && !grants.tenantsOf(caller.clientId).includes(keyParts.tenantId))
    throw tenantForbidden(keyParts.tenantId);
  if (isKeyUnique) return;
  // Refused as another client's session, whether or not it exists yet: the answer never tells which.
  if (keyParts.userId !== caller.clientId && (await grants.grantOf(keyParts.userId)) !== undefined)
    throw sessionForbidden(sessionKey);
}
