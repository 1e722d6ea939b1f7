// The one list of config keys whose values are secrets (token secrets, API keys, the webhook secret): config.read
// and logs show them as "***", and config writes move their values into secrets.yaml.
import type { GatewayConfig } from './schema.js';

export const REDACTED = '***';

/** Every key whose string value is a secret, wherever it appears in the config. */
export const SECRET_KEYS: readonly string[] = ['secret', 'apiKey'];

export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.includes(key);
}

/** A deep copy of `value` in which every string under a secret-bearing key reads "***". */
export function redactSecrets<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, isSecretKey(key) && typeof item === 'string' ? REDACTED : redactValue(item)]),
  );
}

export function redactConfig(config: GatewayConfig): GatewayConfig {
  return redactSecrets(config);
}
