// GET and DELETE /v1/responses/:id (the stored response object, for its token or an admin), POST
// /v1/responses/:id/cancel (a background response), and the retention sweep.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { GatewayError, responseNotFound } from '../../errors.js';
import { UNFINISHED_RESPONSE_STATUSES, type StoredResponse } from '../../store/index.js';
import { sessionCallerOf } from '../../sessions/index.js';
import { restatedBody, type BackgroundResponses } from './background-responses.js';
import { createResponseSweep, usableResponse } from './response-retention.js';
import type { OpenAiContext } from './types.js';
import { parseBody } from './validation.js';

interface ResponseIdRoute {
  Params: { id: string };
}

/** No query parameters are honoured (no streamed retrieval, no `include`), so none is silently ignored. */
const retrieveQuery = z.strictObject({});

/** OpenAI: cancelling twice answers the cancelled response again; a response that has ended cannot be cancelled. */
function assertCancellable(stored: StoredResponse): void {
  if (!stored.isBackground) {
    throw new GatewayError(
      'invalid_params',
      `Only responses created with background: true can be cancelled; ${stored.responseId} was not`,
      { param: 'response_id' },
    );
  }
  if (!UNFINISHED_RESPONSE_STATUSES.includes(stored.status)) {
    throw new GatewayError('invalid_params', `Cannot cancel a ${stored.status} response`, { param: 'response_id' });
  }
}

export function registerResponseRoutes(
  scope: FastifyInstance,
  ctx: OpenAiContext,
  background: BackgroundResponses,
): void {
  /** The caller's stored response with its current status; 404 for one kept from before bodies were stored. */
  async function readUsable(
    id: string,
    caller: Parameters<typeof sessionCallerOf>[0],
  ): Promise<StoredResponse & { body: string }> {
    const stored = await background.current(
      usableResponse(ctx, sessionCallerOf(caller), await ctx.responses.read(id), id, null),
    );
    const { body } = stored;
    if (body === undefined) throw responseNotFound(id);
    return { ...stored, body };
  }

  scope.get<ResponseIdRoute>('/responses/:id', async function retrieveResponse(request, reply) {
    parseBody(retrieveQuery, request.query);
    const { body } = await readUsable(request.params.id, ctx.auth.callerOf(request));
    // The exact JSON text that was answered (or sent in response.completed / response.failed), not re-serialized.
    return reply.type('application/json; charset=utf-8').send(body);
  });

  scope.post<ResponseIdRoute>('/responses/:id/cancel', async function cancelResponse(request, reply) {
    parseBody(retrieveQuery, request.query);
    const { id } = request.params;
    const caller = ctx.auth.callerOf(request);
    let stored = await readUsable(id, caller);
    if (stored.status !== 'cancelled') {
      assertCancellable(stored);
      // Only from queued or in_progress: a turn ending at the same moment (here or on another replica) wins or loses whole.
      const cancelled = await ctx.responses.transition(
        id,
        UNFINISHED_RESPONSE_STATUSES,
        'cancelled',
        restatedBody(stored.body, 'cancelled', null),
      );
      if (cancelled) background.abort(id);
      stored = await readUsable(id, caller);
      if (stored.status !== 'cancelled') assertCancellable(stored);
    }
    return reply.type('application/json; charset=utf-8').send(stored.body);
  });

  scope.delete<ResponseIdRoute>('/responses/:id', async function deleteResponse(request) {
    const { id } = request.params;
    usableResponse(ctx, sessionCallerOf(ctx.auth.callerOf(request)), await ctx.responses.get(id), id, null);
    await ctx.responses.delete(id);
    // A background turn still running here has nowhere left to write its answer.
    background.abort(id);
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
  // Shutdown aborts background turns (shutdownSignal); each records its end before the store closes.
  scope.addHook('onClose', async function waitForBackgroundResponses() {
    await background.whenIdle();
  });
}
