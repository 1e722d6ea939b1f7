// GET /media/:id and /media/:id/meta (spec "Media routes"): rpc scope when tokens exist, only the saving token's
// files (admins: all), 400/404/410, ranges and ETags.
import { send, type SendOptions } from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RouteRegistrar } from '../capability.js';
import { GatewayError, invalidMediaId, mediaNotFound } from '../errors.js';
import { parseRestInput } from '../http/index.js';
import { grantsMethodScope, grantsRest, type RequestAuth, type TokenService } from '../server/index.js';
import type { MediaReader, MediaService } from './media-service.js';

export interface MediaRoutesDeps {
  auth: RequestAuth;
  /** Whether any token exists (config or API-created): without one the routes are open (spec: "bearer, optional"). */
  tokens: Pick<TokenService, 'list'>;
  media: MediaService;
}

const idParams = z.object({ id: z.string() });

/**
 * @fastify/send does the conditional and range work (ETag, If-None-Match 304, If-Range, Range 206/416) and streams
 * from disk. The type comes from the record, so send's own guess is off; the record's id is never a dotfile.
 */
function sendOptions(root: string): SendOptions {
  return {
    root,
    dotfiles: 'deny',
    index: false,
    extensions: false,
    cacheControl: false,
    contentType: false,
    etag: true,
    lastModified: true,
    acceptRanges: true,
  };
}

/** The file is private to its token holders and never changes under its id: caches must ask again, and may reuse it on 304. */
const CACHE_CONTROL = 'private, no-cache';

/**
 * A range past the end (416, with a Content-Range naming the size), a failed If-Match / If-Unmodified-Since (412) or
 * another refusal of send's: the REST envelope instead of send's HTML page, with the status kept since clients branch on it.
 */
function sendConditionFailure(
  reply: FastifyReply,
  statusCode: number,
  headers: Record<string, string>,
  size: number,
): FastifyReply {
  const contentRange = headers['Content-Range'];
  if (contentRange !== undefined) reply.header('content-range', contentRange);
  const error =
    statusCode === 412
      ? { code: 'conflict', message: 'Precondition failed: the file does not match If-Match or If-Unmodified-Since' }
      : {
          code: 'invalid_request',
          message:
            statusCode === 416
              ? `Range not satisfiable: the file is ${size} bytes`
              : 'The request for this file cannot be served',
        };
  return reply.code(statusCode).header('x-content-type-options', 'nosniff').send({ error });
}

export function mediaRoutes({ auth, tokens, media }: MediaRoutesDeps): RouteRegistrar {
  const requireRpc = auth.require({ grants: grantsRest });
  // Spec: "When a token store is configured, the rpc scope is required and an mcp-client token gets 403."
  // The token list is read only for a request without a valid token, so authenticated requests pay nothing for it.
  async function requireMediaScope(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if ((await auth.identify(request)) === undefined && (await tokens.list()).length === 0) return;
    await requireRpc(request, reply);
  }

  /** The token behind the request (it passed requireMediaScope), or anyone when the gateway has no token at all. */
  async function readerOf(request: FastifyRequest): Promise<MediaReader> {
    const caller = await auth.identify(request);
    if (caller === undefined) return 'anyone';
    return { clientId: caller.clientId, isAdmin: grantsMethodScope(caller, 'admin', 'http') };
  }

  return function registerMediaRoutes(scope) {
    const onRequest = requireMediaScope;

    scope.get('/media/:id/meta', { onRequest }, async function mediaMeta(request, reply) {
      const { id } = parseRestInput(idParams, request.params);
      const meta = await media.meta(id, await readerOf(request));
      reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
      return meta;
    });

    scope.get('/media/:id', { onRequest }, async function mediaFile(request, reply) {
      const { id } = parseRestInput(idParams, request.params);
      const file = await media.open(id, await readerOf(request));
      const result = await send(request.raw, `/${file.name}`, sendOptions(file.dir));
      // The record outlived its file (removed by hand, or swept just now): the same 404 as an unknown id.
      if (result.type === 'error' && result.statusCode === 404) throw mediaNotFound(id);
      if (result.type === 'error' && result.statusCode >= 500)
        throw new GatewayError('internal', 'media file unreadable', {}, { cause: result.metadata.error });
      if (result.type === 'error')
        return sendConditionFailure(reply, result.statusCode, result.headers, file.meta.size);
      reply.code(result.statusCode).headers(result.headers);
      if (result.type === 'file' && result.statusCode !== 304) reply.header('content-type', file.meta.contentType);
      reply.header('x-content-type-options', 'nosniff').header('cache-control', CACHE_CONTROL);
      return reply.send(result.stream);
    });

    // Anything else under /media/ (an empty id, a slash or backslash left after decoding, more segments) is a bad id.
    scope.get('/media/*', { onRequest }, async function mediaBadPath() {
      throw invalidMediaId();
    });
  };
}
