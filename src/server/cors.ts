// CORS for browser clients of /v1 and /api (DESIGN §3 "CORS"): preflights answered, configured origins echoed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SERVER_LIMITS } from './limits.js';

/** The allowed origins, replaceable while running so a change of gateway.cors.origins applies at once. */
export interface CorsPolicy {
  setOrigins(origins: readonly string[]): void;
}

/** Only the browser-facing surfaces; /rpc, /ws and /hooks are for servers and stay same-origin. */
const CORS_PATHS = /^\/(?:v1|api)(?:[/?]|$)/;
/** Every method the /v1 and /api routes answer (HEAD comes with each GET route; DELETE /v1/responses/:id). */
const ALLOWED_METHODS = 'GET, HEAD, POST, DELETE';
/** Answered when a preflight names no headers; one that names some gets exactly those back (the origin is trusted). */
const DEFAULT_ALLOWED_HEADERS = 'authorization, content-type, last-event-id, x-request-id';
/** A comma-separated list of header names (RFC 9110 tokens), so nothing else is ever echoed into a header. */
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:[ \t]*,[ \t]*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;
/** Response headers a browser script may read: the trace id and the rate-limit counters (OpenAI SDKs read them). */
const EXPOSED_HEADERS = 'x-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset';

/**
 * Adds the CORS hook at the root, ahead of every route's own hooks (auth, rate limit), so a preflight needs no
 * token and costs no rate-limit slot, and error replies (401, 429) carry the headers too. SSE routes copy the
 * reply's headers when they hijack it (openSseStream), so streams carry them as well. A request without an Origin
 * header, or with CORS off, pays one check.
 */
export function registerCors(app: FastifyInstance, initialOrigins: readonly string[]): CorsPolicy {
  let origins: ReadonlySet<string> = new Set(initialOrigins);

  app.addHook('onRequest', function cors(request: FastifyRequest, reply: FastifyReply, done: () => void) {
    const origin = request.headers.origin;
    if (origins.size === 0 || origin === undefined || !CORS_PATHS.test(request.url)) {
      done();
      return;
    }
    // The answer depends on Origin, so a shared cache must not hand one origin's reply to another.
    reply.header('vary', 'Origin');
    const isAllowed = origins.has(origin);
    const isPreflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!isPreflight) {
      if (isAllowed) {
        reply
          .header('access-control-allow-origin', origin)
          .header('access-control-allow-credentials', 'true')
          .header('access-control-expose-headers', EXPOSED_HEADERS);
      }
      done();
      return;
    }
    if (!isAllowed) {
      // No CORS headers, so the browser refuses the actual request; the 403 tells a person with curl why.
      void reply.code(403).send();
      return;
    }
    const requested = request.headers['access-control-request-headers'];
    void reply
      .code(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-credentials', 'true')
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header(
        'access-control-allow-headers',
        typeof requested === 'string' && HEADER_LIST.test(requested) ? requested : DEFAULT_ALLOWED_HEADERS,
      )
      .header('access-control-max-age', String(SERVER_LIMITS.corsMaxAgeSeconds))
      .send();
  });

  return {
    setOrigins(next) {
      origins = new Set(next);
    },
  };
}
