// The OpenAI-compatible API under /v1: one Fastify plugin with its own auth hook, body parser and error envelope.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors.js';
import { parseJsonBody } from '../../server/index.js';
import { grantsOpenAi } from '../../server/index.js';
import { endStreamsOnClose, SSE_KEEP_ALIVE_MS } from '../../server/index.js';
import { createBackgroundResponses } from './background-responses.js';
import { registerChatCompletions } from './chat-completions.js';
import { registerEmbeddings } from './embeddings.js';
import { openAiErrorHandler } from './errors.js';
import { registerModels } from './models.js';
import { registerResponseRoutes } from './response-routes.js';
import { registerResponses } from './responses.js';
import type { OpenAiContext, OpenAiRoutesDeps } from './types.js';

export type { OpenAiRoutesDeps } from './types.js';
export { OPENAI_ERRORS, openAiErrorBody } from './errors.js';

export async function registerOpenAiRoutes(app: FastifyInstance, deps: OpenAiRoutesDeps): Promise<void> {
  const ctx: OpenAiContext = {
    ...deps,
    now: deps.now ?? Date.now,
    newId: deps.newId ?? randomUUID,
    shutdownSignal: deps.shutdownSignal ?? new AbortController().signal,
    keepAliveMs: deps.keepAliveMs ?? SSE_KEEP_ALIVE_MS,
    openStreams: new Set(),
  };
  await app.register(
    async function openAiPlugin(scope) {
      // Spec "Errors, /v1 routes": auth, rate limit, body and handler errors all leave in OpenAI's envelope.
      scope.setErrorHandler(openAiErrorHandler(deps.log));
      scope.setNotFoundHandler(async function openAiRouteNotFound(request) {
        throw new GatewayError('not_found', `Unknown request URL: ${request.method} ${request.url.split('?')[0]}`);
      });
      // Bodies are JSON whatever the content type says (curl -d sends form encoding), as on POST /rpc.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string' }, function parseOpenAiBody(_request, body, done) {
        try {
          done(
            null,
            parseJsonBody(typeof body === 'string' ? body : body.toString('utf8'), {
              syntaxMessage: 'We could not parse the JSON body of your request',
              isEmptyAllowed: true,
            }),
          );
        } catch (error) {
          done(
            error instanceof Error
              ? error
              : new GatewayError('invalid_request', 'We could not parse the JSON body of your request'),
            undefined,
          );
        }
      });
      // Spec "Authentication" rule 2: the /v1 routes take a token with rpc or api scope.
      scope.addHook('onRequest', deps.auth.require({ grants: grantsOpenAi }));
      endStreamsOnClose(scope, ctx.openStreams);
      registerChatCompletions(scope, ctx);
      registerModels(scope, ctx);
      registerEmbeddings(scope, ctx);
      const background = createBackgroundResponses(ctx);
      registerResponses(scope, ctx, background);
      registerResponseRoutes(scope, ctx, background);
    },
    { prefix: '/v1' },
  );
}
