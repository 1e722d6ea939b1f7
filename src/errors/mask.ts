// The one unknown-error mask: any thrown value (ours, a framework's, an outage, an abort) becomes a GatewayError.
import { isDependencyOutage } from '../dependency-outage.js';
import { GatewayError, INTERNAL_ERROR_MESSAGE } from './gateway-error.js';
import { dependencyUnavailable, requestCancelled } from './availability-errors.js';
import { reportInternal } from './internal-report.js';

/** The logger surface the mask needs (pino's `error(obj, msg)`), so errors.ts stays free of the logger. */
export interface ErrorLog {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * The one unknown-error mask every surface uses: any thrown value becomes a GatewayError; an `internal` one is
 * logged with its cause and `fields` (trace id, method, run id …) and reaches the client only as "Internal error";
 * it is also reported to the app's sink (system:error) with the component and `fields.traceId`, never the message.
 */
export function maskUnknown(
  error: unknown,
  log: ErrorLog,
  fields: Record<string, unknown>,
  logMessage: string,
): GatewayError {
  const mapped = toGatewayError(error);
  if (mapped.kind === 'internal') {
    log.error({ err: mapped.cause ?? error, ...fields }, logMessage);
    reportInternal(log, mapped.cause ?? error, fields.traceId);
  }
  return mapped;
}

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
