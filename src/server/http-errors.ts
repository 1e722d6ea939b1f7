// The REST, SSE and /rpc error envelope {error: {code, message}} and the HTTP status of each error kind.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import {
  publicMessage,
  reportInternal,
  retryAfterHeaderSeconds,
  toGatewayError,
  type ErrorKind,
  type GatewayError,
} from '../errors.js';

export const HTTP_STATUS = {
  parse_error: 400,
  invalid_request: 400,
  method_not_found: 404,
  invalid_params: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  gone: 410,
  conflict: 409,
  duplicate: 409,
  rate_limited: 429,
  payload_too_large: 413,
  upstream_failed: 502,
  unavailable: 503,
  internal: 500,
  budget_exceeded: 429,
} as const satisfies Record<ErrorKind, number>;

/** Sets the status and the headers an error kind implies (Retry-After, WWW-Authenticate). */
export function prepareErrorReply(reply: FastifyReply, error: GatewayError): number {
  const status = HTTP_STATUS[error.kind];
  reply.code(status);
  const retryAfter = retryAfterHeaderSeconds(error.details);
  // The rate limiter has usually set Retry-After already; keep one header (DESIGN §3 "429").
  if (retryAfter !== undefined && !reply.hasHeader('retry-after')) reply.header('retry-after', retryAfter);
  if (error.kind === 'unauthorized') reply.header('www-authenticate', 'Bearer');
  return status;
}

/** Logs what the client does not see: the cause of internal errors, at error level with the trace id. */
export function logHttpError(log: Logger, request: FastifyRequest, error: unknown, mapped: GatewayError): void {
  if (mapped.kind === 'internal') {
    log.error({ err: error, traceId: request.id, url: request.routeOptions.url }, 'request failed');
    reportInternal(log, error, request.id);
  } else log.debug({ traceId: request.id, kind: mapped.kind }, 'request refused');
}

/** Sends `error` in the REST envelope with its status and headers. */
export function sendRestError(reply: FastifyReply, error: GatewayError): FastifyReply {
  prepareErrorReply(reply, error);
  return reply.send({ error: { code: error.kind, message: publicMessage(error) } });
}

export function restErrorHandler(log: Logger) {
  return function restErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const mapped = toGatewayError(error);
    logHttpError(log, request, error, mapped);
    return sendRestError(reply, mapped);
  };
}
