// GET and DELETE /v1/responses/:id (the stored response object, for its token or an admin), and the retention sweep.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { responseNotFound } from '../../errors.js';
import { sessionCallerOf } from '../../turns/index.js';
import { createResponseSweep, usableResponse } from './response-retention.js';
import type { OpenAiContext } from './types.js';
import { parseBody } from './validation.js';

interface ResponseIdRoute {
  Params: { id: string };
}

/** No query parameters are honoured (no streamed retrieval, no `include`), so none is silently ignored. */
const retrieveQuery = z.strictObject({});

export function registerResponseRoutes(scope: FastifyInstance, ctx: OpenAiContext): void {
  scope.get<ResponseIdRoute>('/responses/:id', async function retrieveResponse(request, reply) {
    parseBody(retrieveQuery, request.query);
    const { id } = request.params;
    const { body } = usableResponse(ctx, sessionCallerOf(ctx.auth.callerOf(request)), await ctx.responses.read(id), id, null);
    // A response kept from before bodies were stored has nothing to show: 404 as for an unknown id.
    if (body === undefined) throw responseNotFound(id);
    // The exact JSON text that was answered (or sent in response.completed / response.failed), not re-serialized.
    return reply.type('application/json; charset=utf-8').send(body);
  });

  scope.delete<ResponseIdRoute>('/responses/:id', async function deleteResponse(request) {
    const { id } = request.params;
    usableResponse(ctx, sessionCallerOf(ctx.auth.callerOf(request)), await ctx.responses.get(id), id, null);
    await ctx.responses.delete(id);
    return { id, object: 'response', deleted: true };
  });

  // The sweep lives as long as the /v1 surface: it starts with the server and stops before the store closes.
  const sweep = createResponseSweep(ctx, ctx.responseSweepIntervalMs);
  scope.addHook('onReady', async function startResponseSweep() {
    sweep.start();
  });
  scope.addHook('onClose', async function stopResponseSweep() {
    await sweep.stop();
  });
}
