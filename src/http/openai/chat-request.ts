// The /v1/chat/completions request table (the spec's fields plus the OpenAI fields DESIGN §3 lists) and its reading into a turn.
import { z } from 'zod';
import { GatewayError } from '../../errors.js';
import { toolInput, type CallSettings, type TranscriptToolCall, type WireToolChoice } from '../../providers/index.js';
import {
  addProviderHints,
  clientToolSpecs,
  functionTool,
  metadataSchema,
  PROVIDER_HINT_PARAMS,
  responseFormatOf,
  serviceTierField,
  verbosityField,
  type FunctionTool,
} from './request-fields.js';
import { blocksToText, type PlainMessage } from './turn-input.js';

const content = z.union([z.string(), z.array(z.looseObject({ type: z.string().min(1) }))], {
  error: 'expected a string or an array of content blocks',
});
const name = z.string().min(1).optional();

const toolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  // parsed_arguments: openai-node's parse helpers add it; echoed back, it restates `arguments`.
  function: z.strictObject({
    name: z.string().min(1),
    arguments: z.string(),
    parsed_arguments: z.unknown().optional(),
  }),
});

const chatMessage = z.discriminatedUnion(
  'role',
  [
    z.strictObject({ role: z.literal('system'), content, name }),
    z.strictObject({ role: z.literal('developer'), content, name }),
    z.strictObject({ role: z.literal('user'), content, name }),
    z.strictObject({
      role: z.literal('assistant'),
      content: content.nullable().optional(),
      name,
      tool_calls: z.array(toolCall).optional(),
      // Echoed back by clients that replay a completion's message as it came (openai-node's helpers add `parsed`,
      // which restates the content); a non-null audio or function_call would ask for what the gateway never sent.
      refusal: z.string().nullable().optional(),
      annotations: z.array(z.unknown()).optional(),
      parsed: z.unknown().optional(),
      audio: z
        .null({ error: 'an earlier audio answer cannot be referred to; this gateway answers text only' })
        .optional(),
      function_call: z.null({ error: "legacy function calls are not supported; send 'tool_calls'" }).optional(),
    }),
    z.strictObject({ role: z.literal('tool'), content, tool_call_id: z.string().min(1), name }),
  ],
  { error: 'expected a message with role system, developer, user, assistant or tool' },
);

const unit = (low: number, high: number) =>
  z
    .number()
    .min(low, `must be between ${low} and ${high}`)
    .max(high, `must be between ${low} and ${high}`)
    .nullable()
    .optional();
const positiveInt = z
  .number()
  .int('must be a positive integer')
  .positive('must be a positive integer')
  .nullable()
  .optional();

const toolChoice = z.union(
  [
    z.enum(['none', 'auto', 'required']),
    z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string().min(1) }) }),
  ],
  { error: "expected 'none', 'auto', 'required' or {type: 'function', function: {name}}" },
);

const responseFormat = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('text') }),
    z.strictObject({ type: z.literal('json_object') }),
    z.strictObject({
      type: z.literal('json_schema'),
      json_schema: z.strictObject({
        name: z.string().min(1).max(64),
        description: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullable().optional(),
      }),
    }),
  ],
  { error: "expected {type: 'text'}, {type: 'json_object'} or {type: 'json_schema', json_schema}" },
);

/** Spec "Chat completion request" widened by DESIGN §3: any other field is refused, naming it. */
export const chatCompletionRequest = z.strictObject({
  model: z.string().min(1, 'must not be empty'),
  messages: z.array(chatMessage).min(1, 'must contain at least one message'),
  stream: z.boolean().nullable().optional(),
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  temperature: unit(0, 2),
  top_p: unit(0, 1),
  presence_penalty: unit(-2, 2),
  frequency_penalty: unit(-2, 2),
  max_tokens: positiveInt,
  max_completion_tokens: positiveInt,
  stop: z
    .union([z.string(), z.array(z.string()).min(1).max(4, 'must hold at most 4 sequences')])
    .nullable()
    .optional(),
  seed: z.number().int('must be an integer').nullable().optional(),
  n: z.literal(1, { error: 'only 1 choice is supported' }).nullable().optional(),
  user: z.string().optional(),
  metadata: metadataSchema,
  response_format: responseFormat.optional(),
  tools: z
    .array(z.strictObject({ type: z.literal('function'), function: functionTool }))
    .max(128, 'must hold at most 128 tools')
    .optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).nullable().optional(),
  // Whether the gateway keeps this conversation's transcript (openai.storeTranscripts when absent).
  store: z.boolean().nullable().optional(),
  // Token log probabilities are never returned, so only a request that asks for none is taken.
  logprobs: z.literal(false, { error: 'log probabilities are not supported' }).nullable().optional(),
  top_logprobs: z.literal(0, { error: 'log probabilities are not supported; only 0 is taken' }).nullable().optional(),
  modalities: z
    .array(z.literal('text', { error: "only 'text' output is supported" }))
    .nullable()
    .optional(),
  logit_bias: z
    .record(
      z.string().regex(/^\d+$/, 'keys must be token ids'),
      z.number().min(-100, 'must be between -100 and 100').max(100, 'must be between -100 and 100'),
    )
    .nullable()
    .optional(),
  verbosity: verbosityField,
  service_tier: serviceTierField,
  prompt_cache_key: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

const CHAT_BLOCKS = { text: ['text'], image: ['image_url'] } as const;

function textOf(value: z.infer<typeof content> | null | undefined, param: string): string {
  if (value == null) return '';
  return typeof value === 'string' ? value : blocksToText(value, CHAT_BLOCKS, param);
}

function callsOf(calls: readonly z.infer<typeof toolCall>[]): TranscriptToolCall[] {
  return calls.map((call) => ({ id: call.id, name: call.function.name, input: toolInput(call.function.arguments) }));
}

/** The messages with their content reduced to text; `developer` is a system message (DESIGN §3). */
export function chatMessages(body: ChatCompletionRequest): PlainMessage[] {
  return body.messages.map((message, index): PlainMessage => {
    const text = textOf(message.content, `messages[${index}].content`);
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', text };
      case 'user':
        return { role: 'user', text };
      case 'assistant':
        return {
          role: 'assistant',
          text,
          ...(message.tool_calls === undefined || message.tool_calls.length === 0
            ? {}
            : { toolCalls: callsOf(message.tool_calls) }),
        };
      case 'tool':
        return { role: 'tool', text, toolCallId: message.tool_call_id };
    }
  });
}

function maxOutputTokensOf(body: ChatCompletionRequest): number | undefined {
  const { max_tokens: legacy, max_completion_tokens: current } = body;
  if (legacy != null && current != null && legacy !== current) {
    throw new GatewayError('invalid_params', "Set 'max_completion_tokens' or 'max_tokens', not both", {
      param: 'max_tokens',
    });
  }
  return current ?? legacy ?? undefined;
}

function toolChoiceOf(body: ChatCompletionRequest, tools: readonly FunctionTool[]): WireToolChoice | undefined {
  const choice = body.tool_choice;
  if (choice === undefined || typeof choice === 'string') return choice;
  const { name: chosen } = choice.function;
  if (!tools.some((tool) => tool.name === chosen)) {
    throw new GatewayError('invalid_params', `Invalid value for 'tool_choice': no tool named '${chosen}' in 'tools'`, {
      param: 'tool_choice',
    });
  }
  return { name: chosen };
}

/** Sampling, output format and tool choice for the provider; only what the request sets. */
export function chatSettings(body: ChatCompletionRequest): CallSettings {
  const tools = (body.tools ?? []).map((tool) => tool.function);
  const maxOutputTokens = maxOutputTokensOf(body);
  const toolChoice = toolChoiceOf(body, tools);
  const responseFormat =
    body.response_format === undefined
      ? undefined
      : responseFormatOf(
          body.response_format.type === 'json_schema'
            ? { type: 'json_schema', ...body.response_format.json_schema }
            : body.response_format,
        );
  const settings: CallSettings = {};
  if (body.temperature != null) settings.temperature = body.temperature;
  if (body.top_p != null) settings.topP = body.top_p;
  if (body.presence_penalty != null) settings.presencePenalty = body.presence_penalty;
  if (body.frequency_penalty != null) settings.frequencyPenalty = body.frequency_penalty;
  if (maxOutputTokens !== undefined) settings.maxOutputTokens = maxOutputTokens;
  if (body.stop != null) settings.stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (body.seed != null) settings.seed = body.seed;
  if (responseFormat !== undefined) settings.responseFormat = responseFormat;
  if (toolChoice !== undefined) settings.toolChoice = toolChoice;
  if (body.parallel_tool_calls !== undefined) settings.parallelToolCalls = body.parallel_tool_calls;
  if (body.reasoning_effort != null) settings.reasoningEffort = body.reasoning_effort;
  // An empty bias asks nothing of any provider.
  if (body.logit_bias != null && Object.keys(body.logit_bias).length > 0) settings.logitBias = body.logit_bias;
  if (body.verbosity != null) settings.verbosity = body.verbosity;
  addProviderHints(settings, body);
  return settings;
}

/** The request's function tools, run by the client. */
export function chatClientTools(body: ChatCompletionRequest) {
  return clientToolSpecs(
    (body.tools ?? []).map((tool) => tool.function),
    'tools',
  );
}

/** Where each CallSettings path comes from in a chat request, to name it when a provider cannot honour it. */
export const CHAT_SETTING_PARAMS: Readonly<Record<string, string>> = {
  temperature: 'temperature',
  topP: 'top_p',
  maxOutputTokens: 'max_completion_tokens',
  stop: 'stop',
  seed: 'seed',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
  'responseFormat.json_object': 'response_format',
  'responseFormat.json_schema': 'response_format',
  parallelToolCalls: 'parallel_tool_calls',
  toolChoice: 'tool_choice',
  reasoningEffort: 'reasoning_effort',
  logitBias: 'logit_bias',
  verbosity: 'verbosity',
  ...PROVIDER_HINT_PARAMS,
};
