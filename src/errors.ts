// Every failure kind the gateway reports; each surface (JSON-RPC, REST, /v1) maps kinds to its own envelope.
import type { z } from 'zod';
import { isDependencyOutage } from './dependency-outage.js';

export type ErrorKind =
  | 'parse_error'
  | 'invalid_request'
  | 'method_not_found'
  | 'invalid_params'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'gone'
  | 'conflict'
  | 'duplicate'
  | 'rate_limited'
  | 'payload_too_large'
  | 'upstream_failed'
  | 'unavailable'
  | 'internal';

export const ERROR_KINDS = [
  'parse_error',
  'invalid_request',
  'method_not_found',
  'invalid_params',
  'unauthorized',
  'forbidden',
  'not_found',
  'gone',
  'conflict',
  'duplicate',
  'rate_limited',
  'payload_too_large',
  'upstream_failed',
  'unavailable',
  'internal',
] as const satisfies readonly ErrorKind[];

/**
 * A failure the gateway knows how to report. `details` carries typed extras a surface may use
 * (`param` for the offending parameter, `retryAfterMs` for rate limits and open breakers); never secrets or bodies.
 */
export class GatewayError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: GatewayErrorDetails = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'GatewayError';
  }
}

export interface GatewayErrorDetails {
  param?: string;
  /** When a retry may succeed, in ms from now: HTTP surfaces send it as Retry-After, JSON-RPC as data.retryAfterMs. */
  retryAfterMs?: number;
  requiredScope?: string;
  [key: string]: unknown;
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/** What a client is told for an `internal` failure: the cause goes to the log, never to the wire (spec "internal error"). */
export const INTERNAL_ERROR_MESSAGE = 'Internal error';

/** The message a client may see for `error`: its own, except for `internal`, which is always the generic one. */
export function publicMessage(error: GatewayError): string {
  return error.kind === 'internal' ? INTERNAL_ERROR_MESSAGE : error.message;
}

/** The logger surface the mask needs (pino's `error(obj, msg)`), so errors.ts stays free of the logger. */
export interface ErrorLog {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * The one unknown-error mask every surface uses: any thrown value becomes a GatewayError; an `internal` one is
 * logged with its cause and `fields` (trace id, method, run id …) and reaches the client only as "Internal error".
 */
export function maskUnknown(
  error: unknown,
  log: ErrorLog,
  fields: Record<string, unknown>,
  logMessage: string,
): GatewayError {
  const mapped = toGatewayError(error);
  if (mapped.kind === 'internal') log.error({ err: mapped.cause ?? error, ...fields }, logMessage);
  return mapped;
}

export const notFound = (message: string, details?: GatewayErrorDetails) =>
  new GatewayError('not_found', message, details);

export const agentNotFound = (agentId: string, param = 'agentId') =>
  notFound(`Agent '${agentId}' not found`, { param });

/** An agent whose status is `suspended` (DESIGN §3): `hint` says how to resume it where the surface can. */
export const agentSuspended = (agentId: string, param = 'agentId', hint = '') =>
  new GatewayError('conflict', `Agent '${agentId}' is suspended and accepts no new messages${hint}`, { param });

/** An agent with no usable model (none configured, or one no provider serves): a config problem, not an upstream failure. */
export const agentWithoutModel = (agentId: string, param = 'agentId') =>
  new GatewayError('conflict', `Agent '${agentId}' has no model: set agents.${agentId}.model`, { param });

export const sessionNotFound = (sessionKey: string, param = 'session_key') =>
  notFound(`Session not found: ${sessionKey}`, { param });

/** `param` names the params field that carried the id (session.run_status says run_id, run.* say runId). */
export const runNotFound = (runId: string, param = 'run_id') => notFound(`Run not found: ${runId}`, { param });

/** A run tree that run.kill, lease.revoke or the denial breaker stopped takes no new runs. */
export const runTreeStopped = (rootRunId: string) =>
  new GatewayError(
    'conflict',
    `Run tree ${rootRunId} was stopped (run.kill, lease.revoke or the denial breaker) and takes no new runs`,
  );

export const approvalNotFound = (id: string) => notFound(`Approval request not found: ${id}`, { param: 'id' });

export const approvalAlreadyResolved = (id: string, status: string) =>
  new GatewayError('conflict', `Approval request ${id} is already ${status}`, { param: 'id' });

/** No scheduled job has this name, or the caller does not own it (never told apart, so other clients' jobs stay unseen). */
export const jobNotFound = (name: string, param = 'name') => notFound(`Job '${name}' not found`, { param });

export const jobNameTaken = (name: string) =>
  new GatewayError('conflict', `You already have a job named '${name}'`, { param: 'name' });

export const tooManyJobs = (maxJobsPerOwner: number) =>
  new GatewayError(
    'conflict',
    `A token may have at most ${maxJobsPerOwner} scheduled jobs (scheduler.maxJobsPerOwner); remove one first`,
    { maxJobsPerOwner },
  );

export const tokenNotFound = (id: string) => notFound(`Token '${id}' not found`, { param: 'id' });

/** A media id the store has no record of (spec "Media routes": 404). */
export const mediaNotFound = (id: string) => notFound(`Media not found: ${id}`, { param: 'id' });

/** A media file whose time-to-live has passed, swept or not yet (spec "Media routes": 410). */
export const mediaExpired = (id: string) => new GatewayError('gone', `Media ${id} has expired`, { param: 'id' });

/** A media id with characters other than letters, digits, dot, hyphen or underscore (spec "Media routes": 400). */
export const invalidMediaId = () =>
  new GatewayError(
    'invalid_params',
    'Media id must use only letters, digits, dot, hyphen or underscore, and not start with a dot',
    { param: 'id' },
  );

/** A file over `media.maxBytes`; the limit is named so the saver can shrink it or the operator raise it. */
export const mediaTooLarge = (size: number, maxBytes: number) =>
  new GatewayError('payload_too_large', `Media file of ${size} bytes exceeds media.maxBytes (${maxBytes} bytes)`, {
    param: 'data',
    maxBytes,
  });

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

export const unknownProvider = (provider: string, param = 'provider') =>
  notFound(`Unknown provider '${provider}'`, { param });

export const methodNotFound = (name: string) => new GatewayError('method_not_found', `Method not found: ${name}`);

/** A method's params over its declared `policy.maxParamsBytes`; the limit is named so a client can split the call. */
/**
 * A method's own params limit (policy.maxParamsBytes): -32602 invalid params, since the request was well formed;
 * -32600 stays the transport's answer to a whole message over its limit (spec error table).
 */
export const paramsTooLarge = (method: string, maxParamsBytes: number) =>
  new GatewayError(
    'invalid_params',
    `Invalid params: params of ${method} exceed its limit of ${maxParamsBytes} bytes (policy.maxParamsBytes)`,
    { param: 'params', maxParamsBytes },
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

export const missingBearerToken = () => new GatewayError('unauthorized', 'Missing or invalid bearer token');

export const invalidParams = (message: string, param?: string) =>
  new GatewayError('invalid_params', message, param === undefined ? {} : { param });

/** A signed webhook delivery seen again within the replay window (DESIGN §3 "webhook replay"). */
export const duplicateDelivery = (windowMinutes: number) =>
  new GatewayError('duplicate', `This webhook delivery was already accepted in the last ${windowMinutes} minutes`);

export const insufficientScope = (requiredScope: string) =>
  new GatewayError('forbidden', `Insufficient scope: requires '${requiredScope}'`, { requiredScope });

/** Someone else's session (DESIGN §3 "who may use a session"); the message never says whose it is. */
export const sessionForbidden = (sessionKey: string) =>
  new GatewayError('forbidden', `Session ${sessionKey} belongs to another client`);

/** A session key in a tenant the caller's token was not given (config `gateway.tokens[].tenants`). */
export const tenantForbidden = (tenantId: string) =>
  new GatewayError('forbidden', `Sessions of tenant '${tenantId}' are open only to tokens given that tenant`, {
    param: 'sessionKey',
  });

/** A /v1 response id created by another token; it belongs to its token like the session behind it. */
export const responseForbidden = (responseId: string, param: string | null = 'previous_response_id') =>
  new GatewayError('forbidden', `Response ${responseId} belongs to another client`, param === null ? {} : { param });

/** A /v1 response id never created, deleted, or older than `responses.ttlDays`. */
export const responseNotFound = (responseId: string, param: string | null = null) =>
  notFound(`Response not found: ${responseId}`, param === null ? {} : { param });

/** No Chromium at `browser.executablePath`, or it would not start: how to get one is part of the message. */
export const browserUnavailable = (executablePath: string, reason = 'is not installed') =>
  new GatewayError(
    'unavailable',
    `Chromium at ${executablePath} ${reason}: install it with 'apt-get install chromium' or set browser.executablePath`,
    { executablePath },
  );

/** A browser call that did not finish within `browser.timeoutMs` (or the caller went away). */
export const browserTimeout = (operation: string, timeoutMs: number) =>
  new GatewayError('upstream_failed', `${operation} did not finish within ${timeoutMs} ms (browser.timeoutMs)`, {
    timeoutMs,
  });

/** The page or the browser refused an operation (a network error, a missing element, a closed browser). */
export const browserFailed = (operation: string, reason: string) =>
  new GatewayError('upstream_failed', `${operation} failed: ${reason}`);

/** A URL the browser may not load: a scheme other than http/https, or a private address without browser.allowPrivateNetwork. */
export const browserUrlRefused = (url: string, reason: string, param = 'url') =>
  new GatewayError('forbidden', `Refused to load ${url}: ${reason}`, { param });

/** browser.open with `browser.maxTabs` tabs already open. */
export const tooManyTabs = (maxTabs: number) =>
  new GatewayError('conflict', `At most ${maxTabs} tabs may be open (browser.maxTabs); close one first`, { maxTabs });

export const tabNotFound = (tabId: string, param = 'tabId') => notFound(`Tab not found: ${tabId}`, { param });

export const unknownBrowserAction = (action: string, known: readonly string[]) =>
  invalidParams(`Unknown action '${action}': expected one of ${known.join(', ')}`, 'action');

/** `save: true` on a gateway whose media store is not wired. */
export const mediaStoreUnavailable = () =>
  new GatewayError('unavailable', 'No media store is configured, so nothing can be saved', { param: 'save' });

/** audio.transcribe with every slot busy and its waiting queue full (`limit`: audio.maxWaiting or audio.maxQueuedBytes). */
export const audioBusy = (limit: string, retryAfterMs: number) =>
  new GatewayError('unavailable', `Too many audio.transcribe calls are waiting (${limit}); retry later`, {
    retryAfterMs,
  });

/** A token id issued before (now revoked): ids own sessions and media, so one is never issued twice. */
export const tokenIdTaken = (id: string) =>
  new GatewayError(
    'conflict',
    `Token '${id}' was issued before and revoked; a token id is never issued again (it owns what its token made), so choose another`,
    { param: 'id' },
  );

/** `details.retryAfterMs` as a Retry-After header value: whole seconds, rounded up, at least 1 (RFC 9110 §10.2.3). */
export function retryAfterHeaderSeconds(details: GatewayErrorDetails): string | undefined {
  const { retryAfterMs } = details;
  if (typeof retryAfterMs !== 'number' || !Number.isFinite(retryAfterMs)) return undefined;
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}

/** A JSON body nested deeper than the edge allows (`what`: "Body", or a JSON-RPC param). */
export const jsonTooDeep = (
  what: string,
  maxDepth: number,
  kind: 'invalid_request' | 'invalid_params' = 'invalid_request',
) =>
  new GatewayError(
    kind,
    `${what} nests deeper than ${maxDepth} levels`,
    kind === 'invalid_params' ? { param: 'params' } : {},
  );

/** `__proto__`, `constructor` or `prototype` where user data would become an object key. */
export const forbiddenKey = (path: string, key: string, param = path) =>
  new GatewayError('invalid_params', `${path}: the key '${key}' is not allowed`, { param });

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

/** A browser upgrade to /ws from a page on another site (DESIGN §3 "CORS"): the origin must be the gateway's or listed. */
export const wsOriginRefused = (origin: string) =>
  new GatewayError(
    'forbidden',
    `Origin ${origin} may not open /ws: it is neither this gateway's origin nor in gateway.cors.origins`,
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

function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError';
}

/**
 * Frameworks throw their own errors (Fastify's body limit, JSON parser, rate limiter). They carry an
 * HTTP `statusCode`; this turns the ones we recognise into a kind and everything else into `internal`,
 * keeping the original as `cause` for the log.
 */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isDependencyOutage(error)) return dependencyUnavailable(error);
  if (isAbortError(error)) return requestCancelled(error);
  const statusCode = readStatusCode(error);
  const message = error instanceof Error ? error.message : INTERNAL_ERROR_MESSAGE;
  switch (statusCode) {
    case 400:
    case 415:
      return new GatewayError('invalid_request', message, {}, { cause: error });
    case 401:
      return new GatewayError('unauthorized', message, {}, { cause: error });
    case 403:
      return new GatewayError('forbidden', message, {}, { cause: error });
    case 404:
      return new GatewayError('not_found', message, {}, { cause: error });
    case 413:
      return new GatewayError('payload_too_large', message, {}, { cause: error });
    case 429:
      return new GatewayError('rate_limited', message, {}, { cause: error });
    default:
      return new GatewayError('internal', INTERNAL_ERROR_MESSAGE, {}, { cause: error });
  }
}

function readStatusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  const { statusCode } = error;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

/** One problem in a zod result, in the terms every surface phrases: an unknown key, a missing value, or a bad one. */
export interface FieldIssue {
  problem: 'unknown_key' | 'missing' | 'invalid';
  /** Where it is; for an unknown key, the path of the key itself. */
  path: readonly PropertyKey[];
  /** zod's message without its "Invalid input: " lead-in. */
  reason: string;
  /** zod's message as it is. */
  message: string;
}

/**
 * The one reader of zod issues for every surface (JSON-RPC params, REST, /v1, webhook, config): an
 * `unrecognized_keys` issue becomes one FieldIssue per key. Surfaces only choose the wording.
 */
export function readIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  const read: FieldIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        read.push({
          problem: 'unknown_key',
          path: [...issue.path, key],
          reason: 'unknown key',
          message: issue.message,
        });
      continue;
    }
    const isMissing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
    read.push({
      problem: isMissing ? 'missing' : 'invalid',
      path: issue.path,
      reason: issue.message.replace(/^Invalid input: /, ''),
      message: issue.message,
    });
  }
  return read;
}

/** Unknown keys first (the likeliest typo), else the first issue: for surfaces that report one problem. */
export function firstIssue(issues: readonly z.core.$ZodIssue[]): FieldIssue | undefined {
  const read = readIssues(issues);
  return read.find((issue) => issue.problem === 'unknown_key') ?? read[0];
}

/** `sessionKey.tenantId`, `messages.0.content`: the dotted form JSON-RPC and REST name params in. */
export const dottedPath = (path: readonly PropertyKey[]): string => path.map(String).join('.');

/** `messages[0].content`: the form OpenAI's errors and config problems print. */
export function bracketPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}
