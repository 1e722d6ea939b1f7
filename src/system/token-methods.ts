// tokens.* methods (admin): issue, list, revoke and rotate API tokens; secrets are shown only when issued.
import { z } from 'zod';
import { scopeSchema, tokenIdSchema as tokenId } from '../config/index.js';
import type { TokenService } from '../server/index.js';
import { defineMethod, noParams } from '../rpc/index.js';

export function tokenMethods({ tokens }: { tokens: TokenService }) {
  return [
    defineMethod({
      name: 'tokens.list',
      scope: 'admin',
      summary: 'Every token with its id, scopes and createdAt; secrets are never shown.',
      params: noParams,
      handler: async () => ({ tokens: await tokens.list() }),
    }),
    defineMethod({
      name: 'tokens.create',
      scope: 'admin',
      summary: 'Issues a token; the secret is returned only in this response.',
      params: z.strictObject({ id: tokenId, scopes: z.array(scopeSchema) }),
      handler: ({ id, scopes }) => tokens.create(id, scopes),
    }),
    defineMethod({
      name: 'tokens.revoke',
      scope: 'admin',
      summary: 'Revokes an API token at once.',
      params: z.strictObject({ id: tokenId }),
      handler: ({ id }) => tokens.revoke(id),
    }),
    defineMethod({
      name: 'tokens.rotate',
      scope: 'admin',
      summary: 'Replaces the secret of an API token; the old secret stops working at once.',
      params: z.strictObject({ id: tokenId }),
      handler: ({ id }) => tokens.rotate(id),
    }),
  ];
}
