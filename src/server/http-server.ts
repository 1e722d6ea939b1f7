// Builds the Fastify instance on one port: TLS/mTLS, body limit, trace ids, per-client rate limit, JSON errors.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Logger } from 'pino';
import type { GatewaySection } from '../config/index.js';
import { GatewayError } from '../errors.js';
import { restErrorHandler } from './http-errors.js';
import type { RequestAuth } from './request-auth.js';

export interface HttpServerDeps {
  gateway: GatewaySection;
  log: Logger;
  auth: RequestAuth;
}

const TRACE_ID_HEADER = /^[A-Za-z0-9._-]{1,128}$/;

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

export async function createHttpServer({ gateway, log, auth }: HttpServerDeps): Promise<FastifyInstance> {
  const https = readTls(gateway.tls);
  const app = Fastify({
    loggerInstance: log,
    // Fastify's own per-request lines would log the URL with a `token` query parameter; ours below do not.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    bodyLimit: gateway.httpBodyLimitBytes,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && TRACE_ID_HEADER.test(incoming) ? incoming : randomUUID();
    },
    ...(https === undefined ? {} : { https }),
  }) as unknown as FastifyInstance;

  app.addHook('onRequest', async function exposeTraceId(request, reply) {
    reply.header('x-request-id', request.id);
  });

  await app.register(rateLimit, {
    global: true,
    max: gateway.rateLimit.maxRequests,
    timeWindow: gateway.rateLimit.windowMs,
    // One bucket per client: its token id when it presents a valid one, else its address.
    keyGenerator: (request) => {
      const caller = auth.identify(request, true);
      return caller === undefined ? `ip:${request.ip}` : `token:${caller.clientId}`;
    },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (_request, context) =>
      new GatewayError('rate_limited', `Rate limit exceeded: ${context.max} requests per ${gateway.rateLimit.windowMs} ms`, {
        retryAfterSeconds: Math.ceil(context.ttl / 1000),
      }),
  });

  app.addHook('onResponse', async function logRequest(request, reply) {
    request.log.debug({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request completed');
  });

  app.setErrorHandler(restErrorHandler(log));
  app.setNotFoundHandler(function routeNotFound(request, reply) {
    return reply.code(404).send({ error: { code: 'not_found', message: `Route ${request.method} ${request.url.split('?')[0]} not found` } });
  });
  return app;
}
