// Replaces every secret in a config (token secrets, API keys, webhook secret) with "***" for reads and logs.
import type { GatewayConfig } from './schema.js';

export const REDACTED = '***';

const SECRET_KEYS = new Set(['secret', 'apiKey']);

/** A deep copy of `value` in which every string under a secret-bearing key reads "***". */
export function redactSecrets<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_KEYS.has(key) && typeof item === 'string' ? REDACTED : redactValue(item),
    ]),
  );
}

export function redactConfig(config: GatewayConfig): GatewayConfig {
  return redactSecrets(config);
}
