// Every failure kind the gateway reports; each surface (JSON-RPC, REST, /v1) maps kinds to its own envelope.

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

export const notFound = (message: string, details?: GatewayErrorDetails) =>
  new GatewayError('not_found', message, details);

export const invalidParams = (message: string, param?: string) =>
  new GatewayError('invalid_params', message, param === undefined ? {} : { param });

/** A signed webhook delivery seen again within the replay window (DESIGN §3 "webhook replay"). */
export const duplicateDelivery = (windowMinutes: number) =>
  new GatewayError('duplicate', `This webhook delivery was already accepted in the last ${windowMinutes} minutes`);

export const insufficientScope = (requiredScope: string) =>
  new GatewayError('forbidden', `Insufficient scope: requires '${requiredScope}'`, { requiredScope });

/** Someone else's session (DESIGN §3 "who may use a session"); the message never says whose it is. */
export const sessionForbidden = (sessionKey: string) => new GatewayError('forbidden', `Session ${sessionKey} belongs to another client`);

/** A /v1 response id created by another token; it belongs to its token like the session behind it. */
export const responseForbidden = (responseId: string) =>
  new GatewayError('forbidden', `Response ${responseId} belongs to another client`, { param: 'previous_response_id' });

/** `details.retryAfterMs` as a Retry-After header value: whole seconds, rounded up, at least 1 (RFC 9110 §10.2.3). */
export function retryAfterHeaderSeconds(details: GatewayErrorDetails): string | undefined {
  const { retryAfterMs } = details;
  if (typeof retryAfterMs !== 'number' || !Number.isFinite(retryAfterMs)) return undefined;
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}

/** A JSON body nested deeper than the edge allows (`what`: "Body", or a JSON-RPC param). */
export const jsonTooDeep = (what: string, maxDepth: number, kind: 'invalid_request' | 'invalid_params' = 'invalid_request') =>
  new GatewayError(kind, `${what} nests deeper than ${maxDepth} levels`, kind === 'invalid_params' ? { param: 'params' } : {});

/** `__proto__`, `constructor` or `prototype` where user data would become an object key. */
export const forbiddenKey = (path: string, key: string, param = path) =>
  new GatewayError('invalid_params', `${path}: the key '${key}' is not allowed`, { param });

/**
 * Frameworks throw their own errors (Fastify's body limit, JSON parser, rate limiter). They carry an
 * HTTP `statusCode`; this turns the ones we recognise into a kind and everything else into `internal`,
 * keeping the original as `cause` for the log.
 */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const statusCode = readStatusCode(error);
  const message = error instanceof Error ? error.message : 'Internal error';
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
      return new GatewayError('internal', 'Internal error', {}, { cause: error });
  }
}

function readStatusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  const { statusCode } = error;
  return typeof statusCode === 'number' ? statusCode : undefined;
}
