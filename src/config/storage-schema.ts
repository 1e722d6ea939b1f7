// The deployment sections (DESIGN §2): `storage` (which backend holds the durable state) and `coordination` (how replicas share limits, locks and events); read once at startup.
import { z } from 'zod';
import { durationMs } from './schema-units.js';

/** Connections one replica's pool may hold; the server's max_connections must cover every replica's. */
export const DEFAULT_POSTGRES_MAX_CONNECTIONS = 10;

export const storageConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('sqlite') }),
  z.strictObject({
    kind: z.literal('postgres'),
    /** `postgres://user@host:5432/db`; keep the password out of it (PGPASSWORD, or a `${ENV}` reference for the whole URL). */
    url: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL'),
    maxConnections: z.number().int().min(1).max(1_000).default(DEFAULT_POSTGRES_MAX_CONNECTIONS),
    /** false: a replica only checks that the schema is exactly its version; `agent-gateway migrate` changes it. */
    migrate: z.boolean().default(true),
  }),
]);

/** The URL with the password of its user info (if any) shown as "***": `postgres://app:***@db/gateway`. */
export function redactUrlPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/i, '$1***@');
}

/**
 * How replicas coordinate (DESIGN §2): `local` for one process; `redis` shares rate limits, session locks,
 * liveness, the scheduler lease, /api/events and notifications through one Redis. Applies at the next restart.
 * Put a password in the URL through an ${ENV} reference, so it never enters the config's history.
 */
export const coordinationConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('local') }),
  z.strictObject({
    kind: z.literal('redis'),
    url: z.string().regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL'),
    /** Prepended to every key and channel, so several gateways can share one Redis. */
    keyPrefix: z
      .string()
      .max(64)
      .regex(/^[A-Za-z0-9:._-]*$/, 'letters, digits, colon, dot, underscore or hyphen')
      .default('agw:'),
    /**
     * How long a replica's hold on a channel's pulled inbound (Telegram polling, the IMAP inbox) lasts without renewal:
     * one replica pulls at a time, and after its crash another takes over within this time.
     */
    channelLeaseTtlMs: durationMs(1).min(1_000).default(15_000),
  }),
]);
