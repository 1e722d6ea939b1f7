// The error type itself: the kinds, GatewayError and its details, the public message, and the generic constructors.
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
  | 'internal'
  /** A model or embedding call refused before dispatch: a configured budget (src/budgets) is at its limit. */
  | 'budget_exceeded';

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
  'budget_exceeded',
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

export const notFound = (message: string, details?: GatewayErrorDetails) =>
  new GatewayError('not_found', message, details);

export const invalidParams = (message: string, param?: string) =>
  new GatewayError('invalid_params', message, param === undefined ? {} : { param });

/** `details.retryAfterMs` as a Retry-After header value: whole seconds, rounded up, at least 1 (RFC 9110 §10.2.3). */
export function retryAfterHeaderSeconds(details: GatewayErrorDetails): string | undefined {
  const { retryAfterMs } = details;
  if (typeof retryAfterMs !== 'number' || !Number.isFinite(retryAfterMs)) return undefined;
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}
