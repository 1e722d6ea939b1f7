// POST /v1/chat/completions: one stateless agent turn per request, as a chat.completion or an SSE chunk stream.
import type { Caller } from '../../server/types.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { requestSignal, openSseStream, type SseFrame } from '../../server/index.js';
import { argumentsText, type TranscriptToolCall } from '../../providers/index.js';
import type { TurnRequest, TurnResult } from '../../turns/index.js';
import { sessionCallerOf } from '../../sessions/index.js';
import {
  CHAT_SETTING_PARAMS,
  chatClientTools,
  chatCompletionRequest,
  chatMessages,
  chatSettings,
  type ChatCompletionRequest,
} from './chat-request.js';
import { openAiErrorBody } from './errors.js';
import { assertSettingsHonoured } from './request-fields.js';
import { openAiSessionKey, resolveTarget, splitConversation, toOpenAiFinishReason, turnFailure } from './turn-input.js';
import { isRefusedBeforeOutput, streamTurn } from './turn-stream.js';
import type { OpenAiContext } from './types.js';
import { parseBody } from './validation.js';

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

/** OpenAI's tool_calls entries; `index` is what stream chunks key their pieces on. */
function openAiToolCalls(calls: readonly TranscriptToolCall[]) {
  return calls.map((call, index) => ({
    index,
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: argumentsText(call.input) },
  }));
}

function prepare(ctx: OpenAiContext, body: ChatCompletionRequest, caller: Caller): Completion {
  const target = resolveTarget(body.model, ctx);
  const settings = chatSettings(body);
  assertSettingsHonoured(ctx, target, settings, CHAT_SETTING_PARAMS);
  const clientTools = chatClientTools(body);
  const now = ctx.now();
  const input = splitConversation(chatMessages(body), now, 'messages');
  const id = `chatcmpl-${ctx.newId()}`;
  return {
    id,
    created: Math.floor(now / 1000),
    model: body.model,
    turn: {
      ...target,
      ...input,
      // Spec rule 2 of "What the service does": each request is a session of its own, owned by its token.
      ...openAiSessionKey(id),
      caller: sessionCallerOf(caller),
      isKeyUnique: true,
      ...((body.store ?? ctx.storeTranscripts?.()) === true ? {} : { stateless: true }),
      ...(Object.keys(settings).length === 0 ? {} : { settings }),
      ...(clientTools === undefined ? {} : { clientTools }),
    },
  };
}

function completionMessage(result: TurnResult) {
  const calls = result.toolCalls ?? [];
  if (calls.length === 0) return { role: 'assistant', content: result.response, refusal: null };
  // OpenAI's shape beside tool calls: content null when the model said nothing.
  return {
    role: 'assistant',
    content: result.response.length > 0 ? result.response : null,
    refusal: null,
    tool_calls: openAiToolCalls(calls).map(({ index, ...call }) => call),
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
    choices: [
      {
        index: 0,
        message: completionMessage(result),
        logprobs: null,
        finish_reason: toOpenAiFinishReason(result.finishReason),
      },
    ],
    usage: usageOf(result),
  };
}

/**
 * Spec rule 6: role chunk, one chunk per text delta, finish chunk, the usage chunk when
 * stream_options.include_usage is true (DESIGN §3), then `data: [DONE]`. A failure after the headers went
 * out is sent as `data: {"error": {...}}` (the envelope the openai SDK raises from) and the stream ends
 * without [DONE].
 */
/**
 * The frame of each streamed text delta: the chunk's JSON written around the text, which alone is encoded per delta
 * (the same text as JSON.stringify of the whole chunk object).
 */
function contentDeltaFrame(completion: Completion): (text: string) => SseFrame {
  const head = JSON.stringify({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
  }).slice(0, -1);
  const before = `${head},"choices":[{"index":0,"delta":{"content":`;
  const after = '},"finish_reason":null}]}';
  return (text) => ({ data: `${before}${JSON.stringify(text)}${after}` });
}

async function streamCompletion(
  ctx: OpenAiContext,
  completion: Completion,
  isUsageWanted: boolean,
  reply: FastifyReply,
): Promise<void> {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseFrame => ({
    data: JSON.stringify({
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      choices,
      ...extra,
    }),
  });
  // The headers and the role chunk wait for the first frame: a budget refusing the first model call is still a 429.
  const stream = openSseStream(reply, ctx.openStreams, {
    prelude: [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])],
  });
  try {
    const outcome = await streamTurn(ctx, stream, completion.turn, contentDeltaFrame(completion), 'messages');
    if (!outcome.ok) {
      if (isRefusedBeforeOutput(outcome.error, stream)) throw outcome.error;
      await stream.write({ data: JSON.stringify(openAiErrorBody(outcome.error)) });
      return;
    }
    // Each client tool call whole in one chunk: the pieces clients accumulate by `index` arrive at once.
    for (const call of openAiToolCalls(outcome.result.toolCalls ?? []))
      await stream.write(chunk([{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]));
    await stream.write(
      chunk([{ index: 0, delta: {}, finish_reason: toOpenAiFinishReason(outcome.result.finishReason) }]),
    );
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
