// Resolves a presented secret to a Caller: config tokens compared in constant time, API tokens by hash.
import type { Caller } from './types.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenConfig } from '../config/index.js';
import type { TokenStore } from './token-store.js';

export interface Authenticator {
  /** The caller for `secret`, or undefined when no active token has it. */
  authenticate(secret: string | undefined): Promise<Caller | undefined>;
  /** authenticate for a secret already hashed (secretDigest): a digest remembered for a connection. */
  authenticateDigest(digest: Buffer): Promise<Caller | undefined>;
  /** Swaps in the config file's tokens after a config change; removed secrets stop working at once. */
  replaceConfigTokens(tokens: readonly TokenConfig[]): void;
}

export function hashSecret(secret: string): string {
  return secretDigest(secret).toString('hex');
}

/** The SHA-256 of a secret: what config tokens are compared by and API tokens are stored under (as hex). */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

interface ConfiguredToken {
  caller: Caller;
  digest: Buffer;
}

export function createAuthenticator({
  configTokens,
  store,
}: {
  configTokens: readonly TokenConfig[];
  store: TokenStore;
}): Authenticator {
  // Comparing fixed-length digests keeps timingSafeEqual from leaking the secret's length.
  const toConfigured = (tokens: readonly TokenConfig[]): ConfiguredToken[] =>
    tokens.map((token) => ({
      caller: { clientId: token.id, scopes: token.scopes },
      digest: secretDigest(token.secret),
    }));
  let configured = toConfigured(configTokens);

  async function authenticateDigest(digest: Buffer): Promise<Caller | undefined> {
    let match: Caller | undefined;
    // Every configured token is compared, so the time taken does not say which one matched.
    for (const token of configured) {
      if (timingSafeEqual(token.digest, digest) && match === undefined) match = token.caller;
    }
    if (match !== undefined) return match;
    const stored = await store.findBySecretHash(digest.toString('hex'));
    return stored === undefined ? undefined : { clientId: stored.id, scopes: stored.scopes };
  }

  return {
    async authenticate(secret) {
      if (secret === undefined || secret.length === 0) return undefined;
      return authenticateDigest(secretDigest(secret));
    },
    authenticateDigest,
    replaceConfigTokens(tokens) {
      configured = toConfigured(tokens);
    },
  };
}

/** The bearer secret from an Authorization header value, if it has the `Bearer <secret>` form. */
export function bearerSecret(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
