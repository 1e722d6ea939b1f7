// Errors of a gateway that cannot serve right now: schema versions, storage and Redis outages, busy sessions, shutdown.
import { GatewayError } from './gateway-error.js';

/** A replica older than the database it is pointed at: it would misread or damage rows a newer schema writes. */
export const schemaTooNew = (databaseVersion: number, supportedVersion: number) =>
  new GatewayError(
    'conflict',
    `The database schema is version ${databaseVersion}, newer than version ${supportedVersion} this gateway supports: upgrade the gateway before starting it`,
    { databaseVersion, supportedVersion },
  );

/** A replica started without migrating (storage.migrate: false) against a schema older than the one it needs. */
export const schemaTooOld = (databaseVersion: number, supportedVersion: number) =>
  new GatewayError(
    'unavailable',
    `The database schema is version ${databaseVersion}, older than version ${supportedVersion} this gateway needs: run \`agent-gateway migrate\` first`,
    { databaseVersion, supportedVersion },
  );

/** Under storage: postgres the database holds the config, but a replica finds the database and Redis through its own file. */
export const replicaLocalSection = (section: string) =>
  new GatewayError(
    'invalid_params',
    `${section} is read from each replica's config file under storage: postgres; change it there and restart`,
    { param: section },
  );

/** A config change that lost the race for the next database revision to other replicas this many times in a row. */
export const configChangeContended = (attempts: number) =>
  new GatewayError(
    'conflict',
    `The config changed on other replicas ${attempts} times while this change was being written; send it again`,
  );

/** A session lock that lapsed or was taken over while its turn ran (coordination: redis); the turn stops writing. */
export const sessionLockLost = (sessionKey: string) =>
  new GatewayError(
    'unavailable',
    `The lock on session ${sessionKey} was lost (not renewed in time); the work on it stopped`,
  );

/** Shared coordination (locks, leases) asked for after the gateway began shutting down. */
export const coordinationClosed = () => new GatewayError('unavailable', 'The gateway is shutting down');

export const sessionBusy = (sessionKey: string, maxWaiting: number, retryAfterMs: number) =>
  new GatewayError(
    'unavailable',
    `Session ${sessionKey} already has ${maxWaiting} turns waiting (gateway.maxWaitingTurnsPerSession); try again later`,
    { retryAfterMs },
  );

/**
 * Work stopped by an AbortSignal: its client hung up (requestSignal) or the gateway is shutting down. Nobody waits
 * for a hung-up client's answer, so this is no server fault to log with a stack; a shutdown answers 503.
 */
export const requestCancelled = (cause?: unknown) =>
  new GatewayError(
    'unavailable',
    'The request was cancelled: the client went away or the gateway is shutting down',
    {},
    { cause },
  );

/** How long a client is asked to wait when storage or coordination cannot be reached, in ms. */
export const DEPENDENCY_RETRY_AFTER_MS = 5_000;

/** The database or Redis cannot be reached (down, restarting, out of connections): not a bug, and worth retrying. */
export const dependencyUnavailable = (cause?: unknown) =>
  new GatewayError(
    'unavailable',
    'Storage or coordination (the database or Redis) cannot be reached right now; try again shortly',
    { retryAfterMs: DEPENDENCY_RETRY_AFTER_MS },
    { cause },
  );

/** Redis (coordination: redis) is not connected right now; ioredis is reconnecting. */
export const coordinationUnreachable = () =>
  new GatewayError('unavailable', 'Redis (coordination) is not connected right now; try again shortly', {
    retryAfterMs: DEPENDENCY_RETRY_AFTER_MS,
  });

/**
 * Beyond maxConnections − reservedConnections open sockets, or maxConnectionsPerAddress from one address, only
 * /health, /ready and requests with a valid token are served (DESIGN §3 "connections").
 */
export const connectionsCrowded = () =>
  new GatewayError(
    'unavailable',
    'Too many open connections: only /health, /ready and requests with a valid token are served right now',
    { retryAfterMs: DEPENDENCY_RETRY_AFTER_MS },
  );
