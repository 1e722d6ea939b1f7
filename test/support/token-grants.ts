// A real token directory for fixtures that build a TurnService without a gateway: config tokens given by id and tenants.
import { createTokenDirectory, type TokenDirectory } from '../../src/server/index.js';

/** Token ids with the tenants each is given (besides `default`); every one is an rpc config token. */
export type TenantGrants = Readonly<Record<string, readonly string[]>>;

export function tokenGrants(tenants: TenantGrants = {}): TokenDirectory {
  const configTokens = Object.entries(tenants).map(([id, given]) => ({
    id,
    secret: `${id}-secret-0123456789abcdefghijklmnop`,
    scopes: ['rpc' as const],
    tenants: [...given],
  }));
  return createTokenDirectory({ configTokens: () => configTokens, store: { list: async () => [] }, now: Date.now });
}
