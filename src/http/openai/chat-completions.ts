// POST /v1/chat/completions: one stateless agent turn per request, as a chat.completion or an SSE chunk stream.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Caller } from '../../server/index.js';
import { requestSignal, openSseStream, type SseFrame } from '../../server/index.js';
import { sessionCallerOf, type TurnRequest, type TurnResult } from '../../turns/index.js';
import { openAiErrorBody } from './errors.js';
import {
  blocksToText,
  openAiSessionKey,
  resolveTarget,
  splitConversation,
  toOpenAiFinishReason,
  turnFailure,
  type PlainMessage,
} from './turn-input.js';
import { streamTurn } from './turn-stream.js';
import type { OpenAiContext } from './types.js';
import { parseBody } from './validation.js';

const contentBlock = z.looseObject({ type: z.string().min(1) });

const chatMessage = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.union([z.string(), z.array(contentBlock)], { error: 'expected a string or an array of content blocks' }),
});

/** Spec "Chat completion request": fields outside this table are refused. */
export const chatCompletionRequest = z.strictObject({
  model: z.string().min(1, 'must not be empty'),
  messages: z.array(chatMessage).min(1, 'must contain at least one message'),
  stream: z.boolean().optional(),
  temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').optional(),
  max_tokens: z.number().int('must be a positive integer').positive('must be a positive integer').optional(),
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).optional(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

const CHAT_BLOCKS = { text: ['text'], image: ['image_url'] } as const;

function plainMessages(body: ChatCompletionRequest): PlainMessage[] {
  return body.messages.map((message, index) => ({
    role: message.role,
    text: typeof message.content === 'string' ? message.content : blocksToText(message.content, CHAT_BLOCKS, `messages[${index}].content`),
  }));
}

function usageOf(result: TurnResult) {
  const { input, output, total } = result.tokensUsed;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: total };
}

interface Completion {
  id: string;
  created: number;
  model: string;
  turn: Omit<TurnRequest, 'signal' | 'onDelta'>;
}

function prepare(ctx: OpenAiContext, body: ChatCompletionRequest, caller: Caller): Completion {
  const target = resolveTarget(body.model, ctx);
  const now = ctx.now();
  const input = splitConversation(plainMessages(body), now, 'messages');
  const id = `chatcmpl-${ctx.newId()}`;
  return {
    id,
    created: Math.floor(now / 1000),
    model: body.model,
    turn: {
      ...target,
      ...input,
      // Spec rule 2 of "What the service does": each request is a session of its own, owned by its token.
      sessionKey: openAiSessionKey(id),
      caller: sessionCallerOf(caller),
      isKeyUnique: true,
      ...(ctx.storeTranscripts?.() === true ? {} : { stateless: true }),
      ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
      ...(body.max_tokens === undefined ? {} : { maxOutputTokens: body.max_tokens }),
    },
  };
}

async function complete(ctx: OpenAiContext, completion: Completion, reply: FastifyReply) {
  const signal = requestSignal(reply, ctx.shutdownSignal);
  const result = await ctx.runner.run({ ...completion.turn, signal });
  const failure = turnFailure(result, 'messages');
  if (failure !== undefined) throw failure;
  return {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, message: { role: 'assistant', content: result.response }, finish_reason: toOpenAiFinishReason(result.finishReason) }],
    usage: usageOf(result),
  };
}

/**
 * Spec rule 6: role chunk, one chunk per text delta, finish chunk, the usage chunk when
 * stream_options.include_usage is true (DESIGN §3), then `data: [DONE]`. A failure after the headers went
 * out is sent as `data: {"error": {...}}` (the envelope the openai SDK raises from) and the stream ends
 * without [DONE].
 */
async function streamCompletion(ctx: OpenAiContext, completion: Completion, isUsageWanted: boolean, reply: FastifyReply): Promise<void> {
  const stream = openSseStream(reply, ctx.openStreams);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseFrame => ({
    data: JSON.stringify({ id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model, choices, ...extra }),
  });
  try {
    await stream.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    const outcome = await streamTurn(ctx, stream, completion.turn, (text) => chunk([{ index: 0, delta: { content: text }, finish_reason: null }]), 'messages');
    if (!outcome.ok) {
      await stream.write({ data: JSON.stringify(openAiErrorBody(outcome.error)) });
      return;
    }
    await stream.write(chunk([{ index: 0, delta: {}, finish_reason: toOpenAiFinishReason(outcome.result.finishReason) }]));
    if (isUsageWanted) await stream.write(chunk([], { usage: usageOf(outcome.result) }));
    await stream.write({ data: '[DONE]' });
  } finally {
    stream.close();
  }
}

export function registerChatCompletions(scope: FastifyInstance, ctx: OpenAiContext): void {
  scope.post('/chat/completions', async function chatCompletions(request, reply) {
    const body = parseBody(chatCompletionRequest, request.body);
    // Everything that can be refused with a status is checked before a stream starts.
    const completion = prepare(ctx, body, ctx.auth.callerOf(request));
    if (body.stream !== true) return complete(ctx, completion, reply);
    await streamCompletion(ctx, completion, body.stream_options?.include_usage === true, reply);
    return reply;
  });
}
