// POST /v1/responses: an agent turn in OpenAI's Responses format, answered, streamed or run in the background;
// previous_response_id continues that response's session.
import type { Caller } from '../../server/types.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { requestSignal, openSseStream } from '../../server/index.js';
import { GatewayError } from '../../errors.js';
import { UNFINISHED_RESPONSE_STATUSES } from '../../store/index.js';
import type { TurnRequest } from '../../turns/index.js';
import { readSessionKey, sessionCallerOf } from '../../sessions/index.js';
import type { BackgroundResponses } from './background-responses.js';
import { assertSettingsHonoured } from './request-fields.js';
import {
  createEventSequencer,
  finishedStatus,
  functionCallItem,
  messageItem,
  outputText,
  responseObject,
  type ResponseEcho,
  type ResponseIds,
  type ResponseStatus,
} from './response-object.js';
import { usableResponse } from './response-retention.js';
import {
  RESPONSES_SETTING_PARAMS,
  responsesClientTools,
  responsesInput,
  responsesRequest,
  responsesSettings,
  type ResponsesRequest,
} from './responses-request.js';
import { openAiSessionKey, resolveTarget, turnFailure } from './turn-input.js';
import { isRefusedBeforeOutput, streamTurn } from './turn-stream.js';
import type { OpenAiContext } from './types.js';
import { parseBody } from './validation.js';

interface PreparedResponse {
  ids: ResponseIds;
  echo: ResponseEcho;
  turn: Omit<TurnRequest, 'signal' | 'onDelta'>;
  clientId: string;
  isStored: boolean;
}

function echoOf(body: ResponsesRequest): ResponseEcho {
  return {
    model: body.model,
    instructions: body.instructions ?? null,
    temperature: body.temperature ?? null,
    topP: body.top_p ?? null,
    maxOutputTokens: body.max_output_tokens ?? null,
    previousResponseId: body.previous_response_id ?? null,
    metadata: body.metadata ?? {},
    tools: body.tools ?? [],
    toolChoice: body.tool_choice ?? 'auto',
    parallelToolCalls: body.parallel_tool_calls ?? true,
    textFormat: body.text?.format ?? { type: 'text' },
    store: body.store ?? true,
    user: body.user ?? null,
    // Absent, history that does not fit is dropped oldest first: OpenAI's `auto`.
    truncation: body.truncation ?? 'auto',
    maxToolCalls: body.max_tool_calls ?? null,
    serviceTier: body.service_tier ?? 'auto',
    promptCacheKey: body.prompt_cache_key ?? null,
    safetyIdentifier: body.safety_identifier ?? null,
    verbosity: body.text?.verbosity ?? null,
    background: body.background ?? false,
  };
}

async function prepare(
  ctx: OpenAiContext,
  body: ResponsesRequest,
  requester: Caller,
  background: BackgroundResponses,
): Promise<PreparedResponse> {
  const caller = sessionCallerOf(requester);
  const target = resolveTarget(body.model, ctx);
  const settings = responsesSettings(body);
  assertSettingsHonoured(ctx, target, settings, RESPONSES_SETTING_PARAMS);
  const clientTools = responsesClientTools(body);
  const now = ctx.now();
  const responseId = `resp_${ctx.newId()}`;
  let key = openAiSessionKey(responseId);
  const previousId = body.previous_response_id ?? null;
  const input = responsesInput(body, now, previousId !== null);
  if (previousId !== null) {
    // A response belongs to its token, as the session behind it does; deleted or expired ones are gone (404).
    const previous = usableResponse(
      ctx,
      caller,
      await ctx.responses.read(previousId),
      previousId,
      'previous_response_id',
    );
    const { status } = await background.current(previous);
    if (UNFINISHED_RESPONSE_STATUSES.includes(status)) {
      throw new GatewayError(
        'invalid_params',
        `Previous response ${previousId} is still ${status}; continue it once it has ended`,
        { param: 'previous_response_id' },
      );
    }
    // A stored key: read again like any key that comes in, so the turn carries its parts.
    key = readSessionKey(previous.sessionKey, 'previous_response_id');
  }
  const instructions = body.instructions ?? null;
  const systemPrompt = [instructions, input.systemPrompt]
    .filter((part): part is string => typeof part === 'string')
    .join('\n');
  // store: false keeps no response to read back or continue; a fresh conversation then keeps no session either.
  const isStored = body.store !== false;
  return {
    ids: { responseId, messageId: `msg_${ctx.newId()}`, createdAt: Math.floor(now / 1000) },
    echo: echoOf(body),
    clientId: caller.clientId,
    isStored,
    turn: {
      ...target,
      message: input.message,
      seedHistory: input.seedHistory,
      ...key,
      caller,
      ...(systemPrompt === '' ? {} : { systemPrompt }),
      ...(Object.keys(settings).length === 0 ? {} : { settings }),
      ...(clientTools === undefined ? {} : { clientTools }),
      ...(input.toolOutputs === undefined ? {} : { toolOutputs: input.toolOutputs }),
      ...(body.max_tool_calls == null ? {} : { maxToolCalls: body.max_tool_calls }),
      ...(body.truncation === 'disabled' ? { keepsWholeHistory: true } : {}),
      ...(isStored || previousId !== null ? {} : { stateless: true, isKeyUnique: true }),
    },
  };
}

/** Stores the finished response object, as the JSON text a client is sent, for GET /v1/responses/:id; store: false keeps nothing. */
async function remember(
  ctx: OpenAiContext,
  prepared: PreparedResponse,
  status: ResponseStatus,
  body: string,
): Promise<void> {
  if (!prepared.isStored) return;
  await ctx.responses.save(
    {
      responseId: prepared.ids.responseId,
      sessionKey: prepared.turn.sessionKey,
      clientId: prepared.clientId,
      createdAt: ctx.now(),
      status,
      isBackground: false,
    },
    body,
  );
}

/** The stream stores only what store: true keeps, so a stateless stream serialises its response once, in the event. */
const rememberStreamed = (
  ctx: OpenAiContext,
  prepared: PreparedResponse,
  response: ReturnType<typeof responseObject>,
) => (prepared.isStored ? remember(ctx, prepared, response.status, JSON.stringify(response)) : undefined);

async function respond(ctx: OpenAiContext, prepared: PreparedResponse, reply: FastifyReply) {
  const result = await ctx.runner.run({ ...prepared.turn, signal: requestSignal(reply, ctx.shutdownSignal) });
  const failure = turnFailure(result, 'input');
  if (failure !== undefined) throw failure;
  const status = finishedStatus(result);
  const body = JSON.stringify(responseObject(prepared.ids, prepared.echo, { status, result }));
  await remember(ctx, prepared, status, body);
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * `background: true` is polled through GET /v1/responses/:id, so it needs `store`; its events are not kept for a
 * streamed retrieval, so it cannot stream either. Both are refused naming the field rather than half honoured.
 */
function assertBackgroundUsable(body: ResponsesRequest): void {
  if (body.background !== true) return;
  if (body.stream === true) {
    throw new GatewayError(
      'invalid_params',
      "'background: true' cannot be combined with 'stream: true': poll GET /v1/responses/{id} (client.responses.retrieve) instead",
      { param: 'background' },
    );
  }
  if (body.store === false) {
    throw new GatewayError(
      'invalid_params',
      "'background: true' needs 'store': a background response is read back with GET /v1/responses/{id}",
      { param: 'store' },
    );
  }
}

/**
 * DESIGN §3 stream: created, in_progress, item and part added, text deltas, the done events, then completed (or
 * incomplete, for an answer cut at its length, as OpenAI streams it) or failed.
 */
async function streamResponse(ctx: OpenAiContext, prepared: PreparedResponse, reply: FastifyReply): Promise<void> {
  const { ids, echo } = prepared;
  const event = createEventSequencer();
  const where = { item_id: ids.messageId, output_index: 0, content_index: 0 };
  const inProgress = responseObject(ids, echo, { status: 'in_progress' });
  // The opening events wait for the first frame: a budget refusing the first model call is still a 429.
  const stream = openSseStream(reply, ctx.openStreams, {
    prelude: [
      event('response.created', { response: inProgress }),
      event('response.in_progress', { response: inProgress }),
      event('response.output_item.added', { output_index: 0, item: messageItem(ids, 'in_progress', []) }),
      event('response.content_part.added', { ...where, part: outputText('') }),
    ],
  });
  try {
    const outcome = await streamTurn(
      ctx,
      stream,
      prepared.turn,
      (delta) => event('response.output_text.delta', { ...where, delta }),
      'input',
    );
    if (!outcome.ok) {
      if (isRefusedBeforeOutput(outcome.error, stream)) throw outcome.error;
      const failed = responseObject(ids, echo, { status: 'failed', error: outcome.error });
      await rememberStreamed(ctx, prepared, failed);
      await stream.write(event('response.failed', { response: failed }));
      return;
    }
    const { result } = outcome;
    const status = finishedStatus(result);
    const part = outputText(result.response);
    await stream.write(event('response.output_text.done', { ...where, text: result.response }));
    await stream.write(event('response.content_part.done', { ...where, part }));
    await stream.write(event('response.output_item.done', { output_index: 0, item: messageItem(ids, status, [part]) }));
    // Each client function call whole: added, its arguments in one delta, done.
    for (const [offset, call] of (result.toolCalls ?? []).entries()) {
      const item = functionCallItem(call, 'completed');
      const at = { item_id: item.id, output_index: offset + 1 };
      await stream.write(
        event('response.output_item.added', {
          output_index: at.output_index,
          item: functionCallItem(call, 'in_progress', ''),
        }),
      );
      await stream.write(event('response.function_call_arguments.delta', { ...at, delta: item.arguments }));
      await stream.write(
        event('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }),
      );
      await stream.write(event('response.output_item.done', { output_index: at.output_index, item }));
    }
    const finished = responseObject(ids, echo, { status, result, hasMessageItem: true });
    await rememberStreamed(ctx, prepared, finished);
    await stream.write(event(`response.${status}`, { response: finished }));
  } finally {
    stream.close();
  }
}

export function registerResponses(scope: FastifyInstance, ctx: OpenAiContext, background: BackgroundResponses): void {
  scope.post('/responses', async function createResponse(request, reply) {
    const body = parseBody(responsesRequest, request.body);
    assertBackgroundUsable(body);
    const prepared = await prepare(ctx, body, ctx.auth.callerOf(request), background);
    if (body.background === true)
      return reply.type('application/json; charset=utf-8').send(await background.start(prepared));
    if (body.stream !== true) return respond(ctx, prepared, reply);
    await streamResponse(ctx, prepared, reply);
    return reply;
  });
}
