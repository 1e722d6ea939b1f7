// The /v1 error envelope {error: {message, type, param, code: null}}: one table from error kind to status and type.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { publicMessage, toGatewayError, type ErrorKind, type GatewayError } from '../../errors.js';
import { logHttpError, prepareErrorReply } from '../../server/index.js';

/** The spec's "/v1 routes" error table. */
export type OpenAiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  /** OpenAI's own type for a spent quota: a budget at its limit (DESIGN §3 "budgets at the limit"). */
  | 'insufficient_quota';

interface OpenAiErrorMapping {
  status: number;
  type: OpenAiErrorType;
}

/**
 * Status and type per kind. The spec names a type for 400, 401, 403, 404, 429 and 500 and makes
 * server_error "the fallback for any other status": 409, 410, 413, 502 and 503 keep their status (so
 * clients still see what happened, and the SDK still retries 409 and 5xx) and get server_error.
 */
export const OPENAI_ERRORS = {
  parse_error: { status: 400, type: 'invalid_request_error' },
  invalid_request: { status: 400, type: 'invalid_request_error' },
  method_not_found: { status: 404, type: 'not_found_error' },
  invalid_params: { status: 400, type: 'invalid_request_error' },
  unauthorized: { status: 401, type: 'authentication_error' },
  forbidden: { status: 403, type: 'permission_error' },
  not_found: { status: 404, type: 'not_found_error' },
  gone: { status: 410, type: 'server_error' },
  conflict: { status: 409, type: 'server_error' },
  duplicate: { status: 409, type: 'server_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  payload_too_large: { status: 413, type: 'server_error' },
  upstream_failed: { status: 502, type: 'server_error' },
  unavailable: { status: 503, type: 'server_error' },
  internal: { status: 500, type: 'server_error' },
  budget_exceeded: { status: 429, type: 'insufficient_quota' },
} as const satisfies Record<ErrorKind, OpenAiErrorMapping>;

export interface OpenAiErrorBody {
  /** `upstream_status`: with a 502, the HTTP status the model's provider answered (DESIGN §3 "upstream failures"). */
  error: { message: string; type: OpenAiErrorType; param: string | null; code: null; upstream_status?: number };
}

/** The provider's HTTP status of an upstream failure: a failed turn's `upstreamStatus`, or a routed call's `statusCode`. */
function upstreamStatusOf(error: GatewayError): number | undefined {
  if (error.kind !== 'upstream_failed') return undefined;
  const { upstreamStatus, statusCode } = error.details;
  const status = upstreamStatus ?? statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The envelope of one error; internal errors never show their own message. */
export function openAiErrorBody(error: GatewayError): OpenAiErrorBody {
  const { type } = OPENAI_ERRORS[error.kind];
  const { param } = error.details;
  const upstreamStatus = upstreamStatusOf(error);
  return {
    error: {
      message: publicMessage(error),
      type,
      param: typeof param === 'string' ? param : null,
      code: null,
      ...(upstreamStatus === undefined ? {} : { upstream_status: upstreamStatus }),
    },
  };
}

/** The /v1 plugin's error handler: every thrown error, including auth, rate limit and body errors, leaves here. */
export function openAiErrorHandler(log: Logger) {
  return function openAiErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const mapped = toGatewayError(error);
    logHttpError(log, request, error, mapped);
    // Retry-After (429, and 503 for an open breaker) and WWW-Authenticate as on every HTTP surface.
    prepareErrorReply(reply, mapped);
    reply.code(OPENAI_ERRORS[mapped.kind].status);
    return reply.send(openAiErrorBody(mapped));
  };
}
