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
 * (`param` for the offending parameter, `retryAfterSeconds` for rate limits); never secrets or bodies.
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
  retryAfterSeconds?: number;
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
