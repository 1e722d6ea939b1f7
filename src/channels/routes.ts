// The live mount of adapters' endpoints: one route `/channels/:id/*` handing each request to the current connection's
// own Fastify instance, so connections added or removed by a config change are reachable (or 404) at once.
import type { FastifyInstance } from 'fastify';
import type { Connections } from './connections.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Response headers the outer reply computes itself. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

export function channelRoutes(connections: Pick<Connections, 'get'>) {
  return async function registerChannelRoutes(scope: FastifyInstance): Promise<void> {
    // Adapters verify signatures over the exact bytes sent (Slack), so the body is passed on raw.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.all<{ Params: { id: string } }>('/channels/:id/*', async function channelEndpoint(request, reply) {
      const inner = connections.get(request.params.id)?.http;
      const method = METHODS.find((known) => known === request.method);
      if (inner === undefined || method === undefined) return reply.callNotFound();
      const answer = await inner.inject({
        method,
        url: request.url,
        headers: request.headers,
        ...(Buffer.isBuffer(request.body) ? { payload: request.body } : {}),
      });
      if (answer.statusCode === 404) return reply.callNotFound();
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_HEADERS.has(name.toLowerCase())) reply.header(name, value);
      }
      return reply.code(answer.statusCode).send(answer.rawPayload);
    });
  };
}
