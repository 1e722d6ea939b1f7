// Recognises the errors of a dependency that cannot be reached right now (PostgreSQL, Redis, the network to
// them), so every surface answers `unavailable` with a retry hint instead of an `internal` failure.

/** Socket errors of a connection that could not be made or was lost (Node's system error codes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/**
 * PostgreSQL SQLSTATEs of a server that is unreachable or refusing connections: class 08 (connection exception),
 * 57P01-57P03 (shut down by the admin, crashed, cannot connect now) and 53300 (too many connections).
 */
const POSTGRES_STATES = /^(?:08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** The messages pg and ioredis use for a connection that dropped, timed out or is not up, without a code. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/, // pg: the server went away mid-query, or connect timed out
  /^timeout exceeded when trying to connect$/, // pg-pool: no connection within connectionTimeoutMillis
  /is not queryable$/, // pg: a client whose connection failed
  /^Connection is closed\.$/, // ioredis: the connection closed with the command queued
  /^Command timed out$/, // ioredis: commandTimeout
  /^Command aborted due to connection close$/, // ioredis
  /^Stream isn't writeable and enableOfflineQueue options is false$/, // ioredis: offline, and commands are not queued
];

/** ioredis gave up on a command after its reconnect retries. */
const REDIS_ERROR_NAMES = new Set(['MaxRetriesPerRequestError']);

function readField(error: object, field: 'code' | 'name' | 'message'): string | undefined {
  const value: unknown = Reflect.get(error, field);
  return typeof value === 'string' ? value : undefined;
}

function isOutageItself(error: object): boolean {
  const code = readField(error, 'code');
  if (code !== undefined && (NETWORK_CODES.has(code) || POSTGRES_STATES.test(code))) return true;
  const name = readField(error, 'name');
  if (name !== undefined && REDIS_ERROR_NAMES.has(name)) return true;
  const message = readField(error, 'message');
  return message !== undefined && CONNECTION_MESSAGES.some((pattern) => pattern.test(message));
}

/** How deep `cause` chains and AggregateError lists are followed (a connect to several addresses fails as one AggregateError). */
const MAX_DEPTH = 3;

/** Whether `error` (or its cause, or one of an AggregateError's errors) says a dependency could not be reached. */
export function isDependencyOutage(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > MAX_DEPTH) return false;
  if (isOutageItself(error)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isDependencyOutage(inner, depth + 1)))
    return true;
  return 'cause' in error && isDependencyOutage(error.cause, depth + 1);
}
