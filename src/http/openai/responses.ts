// POST /v1/responses: an agent turn in OpenAI's Responses format; previous_response_id continues that response's session.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { safeKeySchema } from '../../config/index.js';
import { GatewayError } from '../../errors.js';
import type { Caller } from '../../server/index.js';
import { requestSignal, openSseStream } from '../../server/index.js';
import { sessionCallerOf, type TurnRequest } from '../../turns/index.js';
import {
  createEventSequencer,
  messageItem,
  outputText,
  responseObject,
  type ResponseEcho,
  type ResponseIds,
} from './response-object.js';
import { usableResponse } from './response-retention.js';
import { blocksToText, openAiSessionKey, resolveTarget, splitConversation, turnFailure, type PlainMessage, type TurnInput } from './turn-input.js';
import { streamTurn } from './turn-stream.js';
import type { OpenAiContext } from './types.js';
import { parseBody } from './validation.js';

const inputMessage = z.strictObject({
  type: z.literal('message').optional(),
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string().min(1) }))], { error: 'expected a string or an array of content parts' }),
  // Clients replay earlier output items verbatim, with their id and status.
  id: z.string().optional(),
  status: z.string().optional(),
});

/** DESIGN §3 "POST /v1/responses": these fields only. */
export const responsesRequest = z.strictObject({
  model: z.string().min(1, 'must not be empty'),
  input: z.union([z.string(), z.array(inputMessage).min(1, 'must contain at least one message')], { error: 'expected a string or an array of messages' }),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').nullable().optional(),
  max_output_tokens: z.number().int('must be a positive integer').positive('must be a positive integer').nullable().optional(),
  previous_response_id: z.string().min(1).nullable().optional(),
  // OpenAI's bounds: 16 pairs, keys up to 64 and values up to 512 characters.
  metadata: z
    .record(safeKeySchema.max(64), z.string().max(512))
    .refine((value) => Object.keys(value).length <= 16, 'must hold at most 16 pairs')
    .nullable()
    .optional(),
});

export type ResponsesRequest = z.infer<typeof responsesRequest>;

const RESPONSE_BLOCKS = { text: ['input_text', 'output_text'], image: ['input_image'] } as const;

function turnInput(body: ResponsesRequest, now: number): TurnInput {
  if (typeof body.input === 'string') return { message: body.input, seedHistory: [] };
  const messages: PlainMessage[] = body.input.map((message, index) => ({
    role: message.role === 'developer' ? 'system' : message.role,
    text: typeof message.content === 'string' ? message.content : blocksToText(message.content, RESPONSE_BLOCKS, `input[${index}].content`),
  }));
  return splitConversation(messages, now, 'input');
}

interface PreparedResponse {
  ids: ResponseIds;
  echo: ResponseEcho;
  turn: Omit<TurnRequest, 'signal' | 'onDelta'>;
  clientId: string;
}

async function prepare(ctx: OpenAiContext, body: ResponsesRequest, requester: Caller): Promise<PreparedResponse> {
  const caller = sessionCallerOf(requester);
  const target = resolveTarget(body.model, ctx);
  const now = ctx.now();
  const responseId = `resp_${ctx.newId()}`;
  let sessionKey = openAiSessionKey(responseId);
  const previousId = body.previous_response_id ?? null;
  const input = turnInput(body, now);
  if (previousId !== null) {
    // A response belongs to its token, as the session behind it does; deleted or expired ones are gone (404).
    const previous = usableResponse(ctx, caller, await ctx.responses.get(previousId), previousId, 'previous_response_id');
    if (input.seedHistory.length > 0) {
      throw new GatewayError('invalid_params', "With 'previous_response_id', 'input' holds only the new message; earlier turns come from the previous response", { param: 'input' });
    }
    sessionKey = previous.sessionKey;
  }
  const instructions = body.instructions ?? null;
  const systemPrompt = [instructions, input.systemPrompt].filter((part): part is string => typeof part === 'string').join('\n');
  return {
    ids: { responseId, messageId: `msg_${ctx.newId()}`, createdAt: Math.floor(now / 1000) },
    echo: {
      model: body.model,
      instructions,
      temperature: body.temperature ?? null,
      maxOutputTokens: body.max_output_tokens ?? null,
      previousResponseId: previousId,
      metadata: body.metadata ?? {},
    },
    clientId: caller.clientId,
    turn: {
      ...target,
      message: input.message,
      seedHistory: input.seedHistory,
      sessionKey,
      caller,
      ...(systemPrompt === '' ? {} : { systemPrompt }),
      ...(body.temperature == null ? {} : { temperature: body.temperature }),
      ...(body.max_output_tokens == null ? {} : { maxOutputTokens: body.max_output_tokens }),
    },
  };
}

/** Stores the finished response object as the JSON text that is sent, for GET /v1/responses/:id; returns that text. */
async function remember(ctx: OpenAiContext, prepared: PreparedResponse, response: ReturnType<typeof responseObject>): Promise<string> {
  const body = JSON.stringify(response);
  await ctx.responses.save({ responseId: prepared.ids.responseId, sessionKey: prepared.turn.sessionKey, clientId: prepared.clientId, createdAt: ctx.now() }, body);
  return body;
}

async function respond(ctx: OpenAiContext, prepared: PreparedResponse, reply: FastifyReply) {
  const result = await ctx.runner.run({ ...prepared.turn, signal: requestSignal(reply, ctx.shutdownSignal) });
  const failure = turnFailure(result, 'input');
  if (failure !== undefined) throw failure;
  const body = await remember(ctx, prepared, responseObject(prepared.ids, prepared.echo, { status: 'completed', result }));
  return reply.type('application/json; charset=utf-8').send(body);
}

/** DESIGN §3 stream: created, in_progress, item and part added, text deltas, the done events, then completed or failed. */
async function streamResponse(ctx: OpenAiContext, prepared: PreparedResponse, reply: FastifyReply): Promise<void> {
  const { ids, echo } = prepared;
  const stream = openSseStream(reply, ctx.openStreams);
  const event = createEventSequencer();
  const where = { item_id: ids.messageId, output_index: 0, content_index: 0 };
  try {
    const inProgress = responseObject(ids, echo, { status: 'in_progress' });
    await stream.write(event('response.created', { response: inProgress }));
    await stream.write(event('response.in_progress', { response: inProgress }));
    await stream.write(event('response.output_item.added', { output_index: 0, item: messageItem(ids, 'in_progress', []) }));
    await stream.write(event('response.content_part.added', { ...where, part: outputText('') }));

    const outcome = await streamTurn(ctx, stream, prepared.turn, (delta) => event('response.output_text.delta', { ...where, delta }), 'input');
    if (!outcome.ok) {
      const failed = responseObject(ids, echo, { status: 'failed', error: outcome.error });
      await remember(ctx, prepared, failed);
      await stream.write(event('response.failed', { response: failed }));
      return;
    }
    const { result } = outcome;
    const part = outputText(result.response);
    await stream.write(event('response.output_text.done', { ...where, text: result.response }));
    await stream.write(event('response.content_part.done', { ...where, part }));
    await stream.write(event('response.output_item.done', { output_index: 0, item: messageItem(ids, 'completed', [part]) }));
    const completed = responseObject(ids, echo, { status: 'completed', result });
    await remember(ctx, prepared, completed);
    await stream.write(event('response.completed', { response: completed }));
  } finally {
    stream.close();
  }
}

export function registerResponses(scope: FastifyInstance, ctx: OpenAiContext): void {
  scope.post('/responses', async function createResponse(request, reply) {
    const body = parseBody(responsesRequest, request.body);
    const prepared = await prepare(ctx, body, ctx.auth.callerOf(request));
    if (body.stream !== true) return respond(ctx, prepared, reply);
    await streamResponse(ctx, prepared, reply);
    return reply;
  });
}
