// Whose memories a caller or a turn reads: an admin token every one; another token the entries it owns and every entry of the tenants config gives it.
import type { SessionCaller } from '../agents/index.js';
import { GatewayError } from '../errors.js';
import type { TokenDirectory } from '../server/index.js';
import type { MemoryScope } from '../store/index.js';
import { DEFAULT_TENANT } from '../sessions/index.js';

/** What the memory scopes need to know of tokens: lookups in memory on most calls (server/token-directory.ts). */
export type ReaderGrants = Pick<TokenDirectory, 'grantOf' | 'tenantsOf'>;

export const memoryTenantForbidden = (tenantId: string) =>
  new GatewayError('forbidden', `Memories of tenant '${tenantId}' are open only to tokens given that tenant`, {
    param: 'tenantId',
  });

/**
 * The scope of a JSON-RPC or REST caller: an admin caller reads every entry (of `tenantId` alone when given); another
 * token its own entries and those of its tenants (gateway.tokens[].tenants), narrowed to `tenantId` when given, which
 * must be `default` or one of its tenants (`forbidden` otherwise, as for its session keys).
 */
export function callerScope(caller: SessionCaller, grants: ReaderGrants, tenantId?: string): MemoryScope {
  const tenant = tenantId === undefined ? {} : { tenantId };
  if (caller.isAdmin) return tenant;
  const tenantIds = grants.tenantsOf(caller.clientId);
  if (tenantId !== undefined && tenantId !== DEFAULT_TENANT && !tenantIds.includes(tenantId))
    throw memoryTenantForbidden(tenantId);
  return { ...tenant, readableBy: { ownerId: caller.clientId, tenantIds } };
}

/**
 * The reader a turn's recall and memory tools act for: the token owning the session (TurnHookContext.ownerId), not the
 * caller, so an admin continuing a token's session recalls that token's memories. An owner that is no token (webhook
 * sessions, a revoked token) reads its own entries only.
 */
export async function ownerScope(ownerId: string, grants: ReaderGrants): Promise<Pick<MemoryScope, 'readableBy'>> {
  const grant = await grants.grantOf(ownerId);
  if (grant?.isAdmin === true) return {};
  return { readableBy: { ownerId, tenantIds: grant?.tenants ?? [] } };
}
