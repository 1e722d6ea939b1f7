// Which tokens exist and what each is given, by id: config tokens as the live config has them, API tokens from a short-lived copy of the store's list.
import type { TokenConfig } from '../config/index.js';
import { grantsMethodScope } from './scopes.js';
import type { TokenStore } from './token-store.js';

/** How long the store's token list is trusted before a lookup it cannot answer reads it again. */
export const TOKEN_LIST_REFRESH_MS = 2_000;

export interface TokenGrant {
  /** The token's scopes grant admin: it reads every memory and opens sessions in any tenant. */
  isAdmin: boolean;
  /** Tenants besides `default` the token is given (config `gateway.tokens[].tenants`; API tokens have none). */
  tenants: readonly string[];
}

export interface TokenDirectory {
  /**
   * The grant of the token with this id, or undefined when no token has it. Config tokens are answered from the live
   * config; API tokens from the store's list, read again when an id is not in it and the copy is older than
   * TOKEN_LIST_REFRESH_MS (a token issued since, here or by another replica), so most lookups read no store.
   */
  grantOf(id: string): Promise<TokenGrant | undefined>;
  /**
   * The tenants a config token is given, or a gateway caller of its own (a channel connection's), answered without the
   * store; none for any other id.
   */
  tenantsOf(id: string): readonly string[];
  /** Drops the copy of the store's list: the next lookup reads it (a token was issued or revoked here). */
  forget(): void;
}

export interface TokenDirectoryDeps {
  configTokens: () => readonly TokenConfig[];
  /** The tenants the gateway's own callers are given by their config (a channel connection's `tenantId`), by id. */
  systemTenants?: (id: string) => readonly string[];
  store: Pick<TokenStore, 'list'>;
  now: () => number;
}

const isAdminScoped = (id: string, scopes: TokenConfig['scopes']) =>
  grantsMethodScope({ clientId: id, scopes }, 'admin', 'http');

export function createTokenDirectory({ configTokens, systemTenants, store, now }: TokenDirectoryDeps): TokenDirectory {
  let apiTokens: Map<string, TokenGrant> | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<Map<string, TokenGrant>> | undefined;

  function readStore(): Promise<Map<string, TokenGrant>> {
    reading ??= store
      .list()
      .then((tokens) => {
        apiTokens = new Map(
          tokens.map((token) => [token.id, { isAdmin: isAdminScoped(token.id, token.scopes), tenants: [] }]),
        );
        readAt = now();
        return apiTokens;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  return {
    async grantOf(id) {
      const configured = configTokens().find((token) => token.id === id);
      if (configured !== undefined)
        return { isAdmin: isAdminScoped(id, configured.scopes), tenants: configured.tenants ?? [] };
      let tokens = apiTokens;
      if (tokens === undefined || (!tokens.has(id) && now() - readAt >= TOKEN_LIST_REFRESH_MS))
        tokens = await readStore();
      return tokens.get(id);
    },
    tenantsOf(id) {
      return configTokens().find((token) => token.id === id)?.tenants ?? systemTenants?.(id) ?? [];
    },
    forget() {
      apiTokens = undefined;
    },
  };
}

/** The token store as the token service writes it: a token issued or revoked by this gateway is known at once. */
export function forgettingOnWrite(store: TokenStore, directory: Pick<TokenDirectory, 'forget'>): TokenStore {
  return {
    async create(token) {
      await store.create(token);
      directory.forget();
    },
    async revoke(id, revokedAt) {
      const revoked = await store.revoke(id, revokedAt);
      directory.forget();
      return revoked;
    },
    findBySecretHash: (secretHash) => store.findBySecretHash(secretHash),
    findById: (id) => store.findById(id),
    list: () => store.list(),
    replaceSecretHash: (id, secretHash) => store.replaceSecretHash(id, secretHash),
  };
}
