// Authenticates HTTP requests (bearer header, or the token query parameter where a route allows it).
import type { Caller } from './types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, missingBearerToken } from '../errors.js';
import { bearerSecret, type Authenticator } from './authenticator.js';
import { createConnectionSecrets } from './connection-secrets.js';

export interface RequestAuthOptions {
  /** SSE routes accept `?token=` because EventSource cannot set headers (spec: "Authentication"). */
  allowQueryToken?: boolean;
  /** The scope rule of the route; a caller it refuses gets 403. */
  grants: (caller: Caller) => boolean;
}

export interface RequestAuth {
  /** The caller behind the request, resolved once per request (the rate limiter asks first). */
  identify(request: FastifyRequest, allowQueryToken?: boolean): Promise<Caller | undefined>;
  /** A preHandler that rejects with 401 (no or unknown token) or 403 (scope), else records the caller. */
  require(options: RequestAuthOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  callerOf(request: FastifyRequest): Caller;
}

function queryToken(request: FastifyRequest): string | undefined {
  const { query } = request;
  if (typeof query !== 'object' || query === null || !('token' in query)) return undefined;
  return typeof query.token === 'string' ? query.token : undefined;
}

export function createRequestAuth(authenticator: Authenticator): RequestAuth {
  const callers = new WeakMap<FastifyRequest, { caller: Caller | null; isFromQuery: boolean }>();
  const secrets = createConnectionSecrets();

  async function identify(request: FastifyRequest, allowQueryToken = false): Promise<Caller | undefined> {
    const known = callers.get(request);
    // The rate limiter identifies with the query token allowed; a route that refuses it must not reuse that caller.
    if (known !== undefined && (allowQueryToken || !known.isFromQuery)) return known.caller ?? undefined;
    const header = bearerSecret(request.headers.authorization);
    const secret = header ?? (allowQueryToken ? queryToken(request) : undefined);
    // Only the hash is remembered per connection: the token is looked up again on every request, so a revoked or
    // replaced token is refused at once.
    const caller =
      secret === undefined || secret.length === 0
        ? undefined
        : await authenticator.authenticateDigest(secrets.digestOf(request.raw.socket, secret));
    if (header !== undefined || caller !== undefined)
      callers.set(request, { caller: caller ?? null, isFromQuery: header === undefined });
    return caller;
  }

  return {
    identify,
    require({ allowQueryToken = false, grants }) {
      return async function requireToken(request) {
        const caller = await identify(request, allowQueryToken);
        if (caller === undefined) throw missingBearerToken();
        if (!grants(caller))
          throw new GatewayError('forbidden', `Token '${caller.clientId}' lacks the scope this route requires`);
      };
    },
    callerOf(request) {
      const caller = callers.get(request)?.caller;
      if (caller === undefined || caller === null) throw missingBearerToken();
      return caller;
    },
  };
}
