// The one list of keys that carry credentials: the config's secret keys (config.read and logs show them as "***",
// config writes move them into secrets.yaml), the transport's (headers, the token query parameter), and what
// evidence scrubbing drops. The logger's redact paths and obs/scrub.ts are both derived from here.
import type { GatewayConfig } from './schema.js';
import { redactUrlPassword } from './storage-schema.js';

export const REDACTED = '***';

/** Every key whose string value is a secret, wherever it appears in the config. */
export const SECRET_KEYS: readonly string[] = ['secret', 'apiKey'];

/** Credential-bearing names outside the config: HTTP headers, the `?token=` parameter, free-form evidence keys. */
export const CREDENTIAL_KEYS: readonly string[] = [
  'authorization',
  'cookie',
  'token',
  'password',
  'credential',
  'api_key',
];

/** pino redact paths: the transport's own places plus every credential key at the top level and one level down. */
export const LOG_REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query.token',
  'headers.authorization',
  'authorization',
  'token',
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  '*.token',
  // A channel connection's credentials, wherever a log line carries its config.
  '*.botToken',
  '*.signingSecret',
  '*.appToken',
  '*.webhookSecret',
  '*.password',
];

/**
 * A key evidence scrubbing drops whatever its value: any secret or credential name anywhere in the key,
 * case-insensitive (`providerApiKey`, `X-Authorization`), except `token`, which only counts as a suffix so
 * `tokensUsed` and `tokenCount` stay.
 */
export const CREDENTIAL_KEY_PATTERN = new RegExp(
  [...SECRET_KEYS, ...CREDENTIAL_KEYS]
    .map((key) => key.toLowerCase())
    .map((key) => (key === 'token' ? 'token$' : key))
    .join('|'),
  'i',
);

export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.includes(key);
}

/** Maps whose every value is a secret whatever its key: an MCP server's HTTP headers and its stdio child's env. */
export const SECRET_MAPS: readonly string[] = ['mcp.servers.*.headers', 'mcp.servers.*.env', 'otel.headers'];
const SECRET_MAP_SEGMENTS = SECRET_MAPS.map((path) => path.split('.'));

/** Single fields that are secrets by their place, where their key alone (`token`, `password`) is too common a name. */
export const SECRET_FIELDS: readonly string[] = [
  'channels.*.token',
  'channels.*.botToken',
  'channels.*.signingSecret',
  'channels.*.appToken',
  'channels.*.webhookSecret',
  'channels.*.imap.password',
  'channels.*.smtp.password',
];
const SECRET_FIELD_SEGMENTS = SECRET_FIELDS.map((path) => path.split('.'));

const matches = (segments: readonly string[], path: readonly string[]) =>
  segments.every((segment, index) => segment === '*' || segment === path[index]);

/**
 * Whether `path` (keys from the config's root, the value's own key last) is a value of one of the SECRET_MAPS, or one
 * of the SECRET_FIELDS.
 */
export function isInSecretMap(path: readonly string[]): boolean {
  return (
    SECRET_MAP_SEGMENTS.some((segments) => path.length === segments.length + 1 && matches(segments, path)) ||
    SECRET_FIELD_SEGMENTS.some((segments) => path.length === segments.length && matches(segments, path))
  );
}

/** A deep copy of `value` in which every string under a secret-bearing key reads "***", and so does a password inside a `url`. */
export function redactSecrets<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown, path: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item, index) => redactValue(item, [...path, String(index)]));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const at = [...path, key];
      if (typeof item !== 'string') return [key, redactValue(item, at)];
      if (isSecretKey(key) || isInSecretMap(at)) return [key, REDACTED];
      // A server URL (storage.url) is not a secret as a whole, but a password written into it is.
      return [key, key === 'url' ? redactUrlPassword(item) : item];
    }),
  );
}

export function redactConfig(config: GatewayConfig): GatewayConfig {
  return redactSecrets(config);
}
