// API tokens in the config file: their ids, scopes, secrets and tenants.
import { z } from 'zod';

export const SCOPES = ['rpc', 'admin', '*', 'api', 'ws', 'mcp-client', 'metrics'] as const;
export const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;

export const MIN_SECRET_LENGTH = 32;

/** The tenant every token has; `tenants` adds others. */
export const DEFAULT_TENANT = 'default';

/**
 * User parts the gateway puts in keys it makes for everyone (`default:openai-api:openai:<id>` for /v1): a token of that
 * id would own those keys (a key naming a token is that token's, sessions/session-access.ts).
 */
export const GATEWAY_USER_IDS: readonly string[] = ['openai-api'];

/** A token id names its client in session keys (`tenant:<clientId>:channel`), so it may not contain ':'. */
export const tokenIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._-]+$/, 'must use letters, digits, dot, underscore or hyphen')
  .refine((id) => !GATEWAY_USER_IDS.includes(id), 'is a name the gateway uses in its own session keys; choose another');

/**
 * A tenant given to a token: the first part of a session key, so no ':' and no control or invisible character, in NFC
 * (sessions/session-key.ts refuses the same in keys).
 */
export const tenantIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^:\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]+$/u, 'must not contain ":" or control or invisible characters')
  .refine((tenant) => tenant === tenant.normalize('NFC'), 'must be in Unicode NFC form');

export const tokenConfigSchema = z.strictObject({
  id: tokenIdSchema,
  secret: z.string().min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`),
  scopes: z.array(scopeSchema).default([]),
  /**
   * Tenants besides `default` the token may open sessions in, whose memories it reads (all of them, whoever stored
   * them) and whose shared memories its turns recall. Without it a token has tenant `default` and its own memories only.
   */
  tenants: z.array(tenantIdSchema).max(1_000).optional(),
});
