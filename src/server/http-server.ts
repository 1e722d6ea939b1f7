// Builds the Fastify instance on one port: TLS/mTLS, body limit, trace ids, per-client rate limit, JSON errors.
import type { RateCounter } from '../coordination/types.js';
import { readFileSync } from 'node:fs';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Logger } from 'pino';
import type { GatewaySection } from '../config/index.js';
import { GatewayError } from '../errors.js';
import { guardConnections } from './connection-guard.js';
import { createFrameworkErrors } from './framework-errors.js';
import { logHttpError, restErrorHandler, sendRestError } from './http-errors.js';
import { SERVER_LIMITS } from './limits.js';
import { useJsonBodyParser } from './json-body.js';
import type { RequestAuth } from './request-auth.js';
import { sharedRateLimitStore } from './shared-rate-limit-store.js';
import { createTraceIds, parseTraceparent, runInTrace, type TraceParent } from '../tracing/index.js';

export interface HttpServerDeps {
  /** The section at start: what the server is built with (TLS, body limit, timeouts). */
  gateway: GatewaySection;
  /**
   * The section as the config is now, read per request: the rate limit and the connection guard apply live. Default:
   * the section at start.
   */
  live?: () => GatewaySection;
  log: Logger;
  auth: RequestAuth;
  /**
   * Counts gateway.rateLimit in a window shared by every replica (coordination: redis); while it fails, this
   * process counts. Absent, the plugin counts in this process, which is exact for one replica.
   */
  rateCounter?: RateCounter;
  /** Told the client address of each refused request (401, 403, 413, 429, 431): security:warn counts its bursts. */
  onRefused?: (source: string) => void;
  now?: () => number;
  /** Tracing is on: each request's handler runs in its trace (the caller's traceparent, else its own trace id). */
  isTraced?: boolean;
}

const TRACE_ID_HEADER = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * DESIGN §3 "connections": a socket that has not sent a complete request head within headersTimeoutMs is
 * closed, whether it is new, sending its head slowly or idle between keep-alive requests. Node's own
 * timeouts do the work; these are its server options.
 */
function connectionTimeouts(gateway: GatewaySection) {
  return {
    headersTimeout: gateway.headersTimeoutMs,
    requestTimeout: Math.max(gateway.requestTimeoutMs ?? SERVER_LIMITS.requestTimeoutMs, gateway.headersTimeoutMs),
    connectionsCheckingInterval: Math.min(
      SERVER_LIMITS.maxConnectionCheckMs,
      Math.max(SERVER_LIMITS.minConnectionCheckMs, Math.floor(gateway.headersTimeoutMs / 10)),
    ),
  };
}

/** The trace a request's work joins: the caller's span from its traceparent, else a new trace under the request id. */
function requestTrace(request: FastifyRequest): TraceParent {
  return parseTraceparent(request.headers.traceparent) ?? { traceId: request.id, sampled: true, isRemote: false };
}

function readTls(tls: GatewaySection['tls']) {
  if (tls.certPath === null || tls.keyPath === null) return undefined;
  return {
    cert: readFileSync(tls.certPath),
    key: readFileSync(tls.keyPath),
    ...(tls.caPath === null ? {} : { ca: readFileSync(tls.caPath) }),
    // With requireClientCert the TLS handshake itself refuses clients without a certificate from `ca`.
    requestCert: tls.requireClientCert,
    rejectUnauthorized: tls.requireClientCert,
  };
}

/** Answers that refuse hostile or abusive input, as counted for security:warn bursts. */
const REFUSED_STATUSES = new Set([401, 403, 413, 429, 431]);

export async function createHttpServer({
  gateway,
  live = () => gateway,
  log,
  auth,
  rateCounter,
  now = Date.now,
  isTraced = false,
  onRefused,
}: HttpServerDeps): Promise<FastifyInstance> {
  const timeouts = connectionTimeouts(gateway);
  const tls = readTls(gateway.tls);
  const nextTraceId = createTraceIds();
  const isDebug = log.isLevelEnabled('debug');
  // A malformed path is refused by the router before any hook: answered in the REST envelope unless a surface
  // with its own envelope (/v1) claims the prefix (useErrorEnvelope).
  const routerErrors = createFrameworkErrors((error, request, reply) => {
    logHttpError(log, request, error, error);
    return sendRestError(reply, error);
  });
  const app = Fastify({
    loggerInstance: log,
    // Fastify's own per-request lines would log the URL with a `token` query parameter; ours below do not.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    bodyLimit: gateway.httpBodyLimitBytes,
    // W3C trace context: a valid traceparent's trace id is the request's id (an invalid one is ignored).
    genReqId: (request) => {
      const parent = parseTraceparent(request.headers.traceparent);
      if (parent !== undefined) return parent.traceId;
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && TRACE_ID_HEADER.test(incoming) ? incoming : nextTraceId();
    },
    // A child logger per request only pays off when its debug lines are written; errors log the traceId themselves.
    childLoggerFactory: (logger, bindings, options) => (isDebug ? logger.child(bindings, options) : logger),
    // Fastify sets these two on the server itself after creating it, so they are passed here as well.
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: gateway.headersTimeoutMs,
    ...(tls === undefined ? { http: timeouts } : { https: { ...tls, ...timeouts } }),
    frameworkErrors: routerErrors.frameworkErrors,
  }) as unknown as FastifyInstance;
  routerErrors.attach(app);
  // Beyond this many open sockets Node closes a new one as it arrives (DESIGN §3 "connections").
  app.server.maxConnections = gateway.maxConnections;

  app.addHook('onRequest', function exposeTraceId(request, reply, done) {
    reply.header('x-request-id', request.id);
    done();
  });
  guardConnections(app, live, auth);
  // Last before the handler, after the body is read: the handler and everything it awaits run in the request's trace.
  if (isTraced)
    app.addHook('preHandler', function enterTrace(request, _reply, done) {
      runInTrace(requestTrace(request), done);
    });

  await app.register(rateLimit, {
    global: true,
    ...(rateCounter === undefined ? {} : { store: sharedRateLimitStore({ counter: rateCounter, log, now }) }),
    // Functions of the live config: a changed gateway.rateLimit counts the next request by the new limit.
    max: () => live().rateLimit.maxRequests,
    timeWindow: () => live().rateLimit.windowMs,
    // One bucket per client: its token id when it presents a valid one, else its address.
    keyGenerator: async (request) => {
      const caller = await auth.identify(request, true);
      return caller === undefined ? `ip:${request.ip}` : `token:${caller.clientId}`;
    },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    addHeaders: {
      'x-ratelimit-limit': true,
      'x-ratelimit-remaining': true,
      'x-ratelimit-reset': true,
      'retry-after': true,
    },
    errorResponseBuilder: (_request, context) =>
      new GatewayError(
        'rate_limited',
        `Rate limit exceeded: ${context.max} requests per ${live().rateLimit.windowMs} ms`,
        {
          retryAfterMs: context.ttl,
        },
      ),
  });

  if (onRefused !== undefined) {
    app.addHook('onResponse', function countRefusal(request, reply, done) {
      if (REFUSED_STATUSES.has(reply.statusCode)) onRefused(`address:${request.ip}`);
      done();
    });
  }

  if (isDebug) {
    app.addHook('onResponse', function logRequest(request, reply, done) {
      request.log.debug(
        { method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: reply.elapsedTime },
        'request completed',
      );
      done();
    });
  }

  useJsonBodyParser(app);
  app.setErrorHandler(restErrorHandler(log));
  app.setNotFoundHandler(function routeNotFound(request, reply) {
    return reply.code(404).send({
      error: { code: 'not_found', message: `Route ${request.method} ${request.url.split('?')[0]} not found` },
    });
  });
  return app;
}
