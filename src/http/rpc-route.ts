// POST /rpc: JSON-RPC 2.0 over HTTP with the WebSocket's dispatcher; a batch of notifications answers 204.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { dispatchJsonRpcText, type Dispatcher } from '../rpc/index.js';
import { requestSignal, type RequestAuth } from '../server/index.js';

export interface RpcRouteDeps {
  dispatcher: Dispatcher;
  auth: RequestAuth;
  log: Logger;
  /** Aborted at shutdown so long handlers stop. */
  shutdownSignal: AbortSignal;
}

export async function registerRpcRoute(
  app: FastifyInstance,
  { dispatcher, auth, log, shutdownSignal }: RpcRouteDeps,
): Promise<void> {
  await app.register(async function rpcPlugin(scope) {
    // The body is JSON whatever the client calls it (curl -d sends form encoding); the dispatcher parses it
    // so that malformed JSON gets JSON-RPC's -32700 rather than an HTTP 400.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    scope.post(
      '/rpc',
      // Any valid token may call; each method checks its own scope (-32603 when it is missing).
      // Checked on request, so an unauthenticated body is never read.
      { onRequest: auth.require({ grants: () => true }) },
      async function rpcOverHttp(request, reply) {
        const text = typeof request.body === 'string' ? request.body : '';
        const outcome = await dispatchJsonRpcText(dispatcher, text, {
          caller: auth.callerOf(request),
          transport: 'http',
          log,
          traceId: request.id,
          // A client that hangs up cancels its calls (an agent.execute turn and its upstream request).
          signal: requestSignal(reply, shutdownSignal),
        });
        if (outcome === null) return reply.code(204).send();
        return reply.type('application/json').send(JSON.stringify(outcome));
      },
    );
  });
}
