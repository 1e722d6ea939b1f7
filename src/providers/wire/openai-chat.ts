// The OpenAI Chat Completions wire (types openai and openai-compatible: Ollama, vLLM, llama.cpp, LM Studio, OpenRouter).
import type { TranscriptMessage } from '../transcript.js';
import type { ToolSpec } from '../types.js';
import { argumentsText, systemPromptOf } from './decoding.js';
import { protocolError } from './errors.js';
import type { WireHttp } from './http.js';
import { OpenAiChatDecoder } from './openai-chat-decoder.js';
import { callJson, streamCall } from './stream-call.js';
import type {
  WireAdapter,
  WireCallRequest,
  WireEmbedRequest,
  WireEmbedResult,
  WireSetup,
  WireToolChoice,
} from './types.js';

/** The field of the output ceiling: `max_tokens`, which every server knows, unless the type's row names another. */
type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** A bearer key; no header at all without one (keyless local servers). */
export function openAiChatAuth(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
}

type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAiToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * The transcript as Chat Completions messages: the joined system prompt first, one `tool` message per
 * result (OpenAI pairs each with its call by id), and no empty assistant messages.
 */
export function openAiMessages(system: string | undefined, transcript: readonly TranscriptMessage[]): OpenAiMessage[] {
  const messages: OpenAiMessage[] = [];
  const prompt = systemPromptOf(system, transcript);
  if (prompt !== undefined) messages.push({ role: 'system', content: prompt });
  for (const message of transcript) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        messages.push({ role: 'user', content: message.content });
        break;
      case 'assistant': {
        const calls = message.toolCalls;
        if (calls === undefined || calls.length === 0) {
          if (message.content.length > 0) messages.push({ role: 'assistant', content: message.content });
          break;
        }
        const toolCalls = calls.map((call): OpenAiToolCall => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: argumentsText(call.input) },
        }));
        // null, not '', beside tool calls: OpenAI's own shape, and what strict compatible servers expect.
        messages.push({
          role: 'assistant',
          content: message.content.length > 0 ? message.content : null,
          tool_calls: toolCalls,
        });
        break;
      }
      case 'tool':
        messages.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
        break;
    }
  }
  return messages;
}

function toolChoiceOf(choice: WireToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function toolsOf(tools: readonly ToolSpec[]): unknown[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  }));
}

/** The request body; only fields the request sets are sent, so servers keep their own defaults. */
export function openAiChatBody(request: WireCallRequest, maxTokensField: MaxTokensField): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.modelId,
    messages: openAiMessages(request.system, request.messages),
    stream: request.stream !== false,
  };
  // Usage arrives only in a last chunk, and only when asked for.
  if (request.stream !== false) body.stream_options = { include_usage: true };
  const { sampling } = request;
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.maxOutputTokens !== undefined) body[maxTokensField] = sampling.maxOutputTokens;
  if (sampling.stop !== undefined) body.stop = sampling.stop;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (sampling.presencePenalty !== undefined) body.presence_penalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) body.frequency_penalty = sampling.frequencyPenalty;
  if (sampling.logitBias !== undefined) body.logit_bias = sampling.logitBias;
  const format = request.responseFormat;
  if (format !== undefined) {
    body.response_format =
      format.type === 'json_schema'
        ? {
            type: 'json_schema',
            json_schema: {
              name: format.name,
              schema: format.schema,
              ...(format.strict === undefined ? {} : { strict: format.strict }),
            },
          }
        : { type: format.type };
  }
  if (request.tools.length > 0) {
    body.tools = toolsOf(request.tools);
    if (request.toolChoice !== undefined) body.tool_choice = toolChoiceOf(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort;
  if (request.verbosity !== undefined) body.verbosity = request.verbosity;
  if (request.serviceTier !== undefined) body.service_tier = request.serviceTier;
  if (request.promptCacheKey !== undefined) body.prompt_cache_key = request.promptCacheKey;
  if (request.safetyIdentifier !== undefined) body.safety_identifier = request.safetyIdentifier;
  return body;
}

interface OpenAiEmbeddingList {
  data?: { index?: number; embedding?: number[] }[];
  model?: string;
}

function embeddingVectors(body: unknown, expected: number): { vectors: number[][]; model: string | undefined } {
  if (typeof body !== 'object' || body === null) throw protocolError('embedding answer is not an object');
  const list: OpenAiEmbeddingList = body;
  if (!Array.isArray(list.data) || list.data.length !== expected)
    throw protocolError(`embedding answer has no ${expected} vectors`);
  const byIndex: (number[] | undefined)[] = new Array<number[] | undefined>(expected).fill(undefined);
  list.data.forEach((item, position) => {
    const index = typeof item.index === 'number' ? item.index : position;
    if (!Array.isArray(item.embedding) || index < 0 || index >= expected)
      throw protocolError('embedding answer has a malformed item');
    byIndex[index] = item.embedding;
  });
  const vectors = byIndex.filter((vector) => vector !== undefined);
  if (vectors.length !== expected) throw protocolError('embedding answer repeats an index');
  return { vectors, model: typeof list.model === 'string' && list.model.length > 0 ? list.model : undefined };
}

export function createOpenAiChatAdapter(http: WireHttp, setup: WireSetup): WireAdapter {
  const maxTokensField: MaxTokensField = setup.maxTokensField ?? 'max_tokens';
  const chatPath = `${http.basePath}/chat/completions`;
  const embeddingsPath = `${http.basePath}/embeddings`;
  return {
    protocol: 'openai-chat',
    http,
    stream(request) {
      return streamCall(
        http,
        chatPath,
        JSON.stringify(openAiChatBody(request, maxTokensField)),
        request.signal,
        new OpenAiChatDecoder(request.reportToolInput === true),
      );
    },
    async embed({ modelId, texts, dimensions, signal }: WireEmbedRequest): Promise<WireEmbedResult> {
      if (texts.length === 0) return { vectors: [], model: modelId };
      const body = JSON.stringify({
        model: modelId,
        input: texts,
        encoding_format: 'float',
        ...(dimensions === undefined ? {} : { dimensions }),
      });
      const { vectors, model } = embeddingVectors(await callJson(http, embeddingsPath, body, signal), texts.length);
      return { vectors, model: model ?? modelId };
    },
    // Chat Completions carries every field of WireCallRequest; a compatible server that ignores one is its own limit.
    unsupported: setup.unsupported,
    close: () => http.close(),
  };
}
