// Issues, lists, revokes and rotates API tokens; secrets are returned once and stored only as hashes.
import { GatewayError, tokenNotFound } from '../errors.js';
import { generateSecret, tokenIdSchema, type Scope, type TokenConfig } from '../config/index.js';
import { hashSecret } from './authenticator.js';
import type { TokenStore } from './token-store.js';

export interface TokenEntry {
  id: string;
  scopes: Scope[];
  createdAt: string;
  /** `config` tokens live in config.yaml and are changed there; `api` tokens were issued by this service. */
  source: 'config' | 'api';
}

export interface IssuedToken {
  id: string;
  secret: string;
  scopes: Scope[];
}

export interface TokenService {
  list(): Promise<TokenEntry[]>;
  create(id: string, scopes: Scope[]): Promise<IssuedToken>;
  revoke(id: string): Promise<{ id: string; revoked: true }>;
  rotate(id: string): Promise<IssuedToken>;
  /** Swaps in the config file's tokens after a config change; ids whose secret changed or vanished are retired. */
  replaceConfigTokens(tokens: readonly TokenConfig[]): void;
  /** Called with the token id whenever a secret stops working (revoke, rotate), so open sockets can be closed. */
  onSecretRetired(listener: (id: string) => void): () => void;
}

export interface TokenServiceDeps {
  store: TokenStore;
  configTokens: readonly TokenConfig[];
  now: () => number;
  /** When the config file was loaded; reported as createdAt of config tokens. */
  configLoadedAt: string;
}

export function createTokenService({
  store,
  configTokens: initialConfigTokens,
  now,
  configLoadedAt,
}: TokenServiceDeps): TokenService {
  let configTokens = initialConfigTokens;
  let configIds = new Set(configTokens.map((token) => token.id));
  const retiredListeners = new Set<(id: string) => void>();
  const announceRetired = (id: string) => {
    for (const listener of retiredListeners) listener(id);
  };

  function refuseConfigToken(id: string, action: string): void {
    if (configIds.has(id)) {
      throw new GatewayError('conflict', `Token '${id}' is defined in the config file; ${action} it there`, {
        param: 'id',
      });
    }
  }

  return {
    async list() {
      const fromConfig: TokenEntry[] = configTokens.map((token) => ({
        id: token.id,
        scopes: token.scopes,
        createdAt: configLoadedAt,
        source: 'config',
      }));
      const fromStore: TokenEntry[] = (await store.list()).map((token) => ({
        id: token.id,
        scopes: token.scopes,
        createdAt: token.createdAt,
        source: 'api',
      }));
      return [...fromConfig, ...fromStore];
    },
    async create(id, scopes) {
      const checked = tokenIdSchema.safeParse(id);
      if (!checked.success)
        throw new GatewayError('invalid_params', `Token id ${checked.error.issues[0]?.message ?? 'is invalid'}`, {
          param: 'id',
        });
      if (configIds.has(id) || (await store.findById(id)) !== undefined) {
        throw new GatewayError('conflict', `Token '${id}' already exists`, { param: 'id' });
      }
      const secret = generateSecret();
      await store.create({ id, secretHash: hashSecret(secret), scopes, createdAt: new Date(now()).toISOString() });
      return { id, secret, scopes };
    },
    async revoke(id) {
      refuseConfigToken(id, 'remove');
      if (!(await store.revoke(id, new Date(now()).toISOString()))) throw tokenNotFound(id);
      announceRetired(id);
      return { id, revoked: true };
    },
    async rotate(id) {
      refuseConfigToken(id, 'change');
      const existing = await store.findById(id);
      if (existing === undefined) throw tokenNotFound(id);
      const secret = generateSecret();
      await store.replaceSecretHash(id, hashSecret(secret));
      announceRetired(id);
      return { id, secret, scopes: existing.scopes };
    },
    replaceConfigTokens(tokens) {
      const secretOf = new Map(tokens.map((token) => [token.id, token.secret]));
      const retired = configTokens.filter((token) => secretOf.get(token.id) !== token.secret).map((token) => token.id);
      configTokens = tokens;
      configIds = new Set(tokens.map((token) => token.id));
      for (const id of retired) announceRetired(id);
    },
    onSecretRetired(listener) {
      retiredListeners.add(listener);
      return () => retiredListeners.delete(listener);
    },
  };
}
