// Which tenant's memories a JSON-RPC or REST caller sees: tokens carry no tenant, so an rpc caller's is its sessions'.
import type { SessionCaller } from '../agents/index.js';
import { GatewayError } from '../errors.js';
import type { MemoryScope, SessionPort } from '../store/index.js';
import { DEFAULT_TENANT } from '../turns/index.js';

export type CallerSessions = Pick<SessionPort, 'list'>;

export const memoryTenantForbidden = (tenantId: string) =>
  new GatewayError('forbidden', `Memories of tenant '${tenantId}' belong to another client`, { param: 'tenantId' });

/**
 * An admin caller sees every tenant, or `requested` alone. An rpc caller sees one tenant: that of the newest
 * session its token owns (session keys are `tenant:user:channel`), else `default` (DESIGN §3); naming another
 * tenant is refused with `forbidden`.
 */
export async function memoryScopeOf(caller: SessionCaller, sessions: CallerSessions, requested?: string): Promise<MemoryScope> {
  if (caller.isAdmin) return requested === undefined ? {} : { tenantId: requested };
  const [newest] = await sessions.list({ ownedBy: caller.clientId, limit: 1 });
  const tenantId = newest?.tenantId ?? DEFAULT_TENANT;
  if (requested !== undefined && requested !== tenantId) throw memoryTenantForbidden(requested);
  return { tenantId };
}
