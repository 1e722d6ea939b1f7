// The /v1/responses request (DESIGN §3 plus function tools, text.format and the fields the official SDK sends) and its reading into a turn.
import { z } from 'zod';
import { GatewayError } from '../../errors.js';
import { toolInput, type CallSettings, type WireToolChoice } from '../../providers/index.js';
import {
  addProviderHints,
  clientToolSpecs,
  functionTool,
  metadataSchema,
  PROVIDER_HINT_PARAMS,
  responseFormatOf,
  serviceTierField,
  verbosityField,
} from './request-fields.js';
import { blocksToText, splitConversation, type PlainMessage, type TurnInput } from './turn-input.js';

const contentParts = z.array(z.looseObject({ type: z.string().min(1) }));
// Clients replay earlier output items verbatim, with their id and status.
const replayed = { id: z.string().optional(), status: z.string().optional() };

const messageItem = z.strictObject({
  type: z.literal('message'),
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), contentParts], { error: 'expected a string or an array of content parts' }),
  ...replayed,
});

const functionCallItem = z.strictObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  ...replayed,
});

const functionCallOutputItem = z.strictObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), contentParts], { error: 'expected a string or an array of content parts' }),
  ...replayed,
});

/** A message item may leave out `type` (OpenAI's easy input message). */
const inputItem = z.preprocess(
  (item) => (typeof item === 'object' && item !== null && !('type' in item) ? { ...item, type: 'message' } : item),
  z.discriminatedUnion('type', [messageItem, functionCallItem, functionCallOutputItem], {
    error: "expected an item of type 'message', 'function_call' or 'function_call_output'",
  }),
);

type InputItem = z.infer<typeof inputItem>;

const textFormat = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('text') }),
    z.strictObject({ type: z.literal('json_object') }),
    z.strictObject({
      type: z.literal('json_schema'),
      name: z.string().min(1).max(64),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullable().optional(),
    }),
  ],
  { error: "expected {type: 'text'}, {type: 'json_object'} or {type: 'json_schema', name, schema}" },
);

const toolChoice = z.union(
  [z.enum(['none', 'auto', 'required']), z.strictObject({ type: z.literal('function'), name: z.string().min(1) })],
  { error: "expected 'none', 'auto', 'required' or {type: 'function', name}" },
);

/** Extra output OpenAI can attach (encrypted reasoning, log probabilities, tool sources …); the gateway has none of it. */
const includeItem = z
  .string()
  .max(100, 'must be at most 100 characters')
  .refine(() => false, {
    error: (issue) => `'${String(issue.input)}' is not available from this gateway; send include: [] or leave it out`,
  });

/** DESIGN §3 "POST /v1/responses" with function tools and structured output; any other field is refused, naming it. */
export const responsesRequest = z.strictObject({
  model: z.string().min(1, 'must not be empty'),
  input: z.union([z.string(), z.array(inputItem).min(1, 'must contain at least one item')], {
    error: 'expected a string or an array of input items',
  }),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').nullable().optional(),
  top_p: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').nullable().optional(),
  max_output_tokens: z
    .number()
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .nullable()
    .optional(),
  previous_response_id: z.string().min(1).nullable().optional(),
  metadata: metadataSchema,
  user: z.string().optional(),
  store: z.boolean().nullable().optional(),
  text: z.strictObject({ format: textFormat.optional(), verbosity: verbosityField }).nullable().optional(),
  tools: z
    .array(
      z.strictObject({
        type: z.literal('function', { error: "only 'function' tools are supported" }),
        ...functionTool.shape,
      }),
    )
    .max(128, 'must hold at most 128 tools')
    .optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  reasoning: z
    .strictObject({ effort: z.enum(['minimal', 'low', 'medium', 'high']).nullable().optional() })
    .nullable()
    .optional(),
  include: z.array(includeItem).nullable().optional(),
  // `auto` is what the gateway does: history that does not fit the model's window is dropped oldest first.
  truncation: z.enum(['auto', 'disabled']).nullable().optional(),
  service_tier: serviceTierField,
  prompt_cache_key: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
  // Caps the tool calls of the turn: TurnRequest.maxToolCalls.
  max_tool_calls: z
    .number()
    .int('must be a non-negative integer')
    .min(0, 'must be a non-negative integer')
    .nullable()
    .optional(),
  background: z.boolean().nullable().optional(),
});

export type ResponsesRequest = z.infer<typeof responsesRequest>;

const RESPONSE_BLOCKS = { text: ['input_text', 'output_text'], image: ['input_image'] } as const;

function itemsToMessages(items: readonly InputItem[]): PlainMessage[] {
  const messages: PlainMessage[] = [];
  items.forEach((item, index) => {
    switch (item.type) {
      case 'message':
        messages.push({
          role: item.role === 'developer' ? 'system' : item.role,
          text:
            typeof item.content === 'string'
              ? item.content
              : blocksToText(item.content, RESPONSE_BLOCKS, `input[${index}].content`),
        });
        break;
      case 'function_call': {
        // A call joins the assistant message right before it, as one model reply holds text and calls together.
        const call = { id: item.call_id, name: item.name, input: toolInput(item.arguments) };
        const last = messages.at(-1);
        if (last?.role === 'assistant') last.toolCalls = [...(last.toolCalls ?? []), call];
        else messages.push({ role: 'assistant', text: '', toolCalls: [call] });
        break;
      }
      case 'function_call_output':
        messages.push({
          role: 'tool',
          toolCallId: item.call_id,
          text:
            typeof item.output === 'string'
              ? item.output
              : blocksToText(item.output, RESPONSE_BLOCKS, `input[${index}].output`),
        });
        break;
    }
  });
  return messages;
}

/**
 * The turn's input. Without previous_response_id the items are the whole conversation; with it they are what is
 * new: results for the previous response's function calls and, optionally, the next user message.
 */
export function responsesInput(body: ResponsesRequest, now: number, continues: boolean): TurnInput {
  if (typeof body.input === 'string') return { message: body.input, seedHistory: [] };
  const messages = itemsToMessages(body.input);
  if (!continues) return splitConversation(messages, now, 'input');
  const toolOutputs = messages.flatMap((message) =>
    message.role === 'tool' ? [{ toolCallId: message.toolCallId, content: message.text }] : [],
  );
  const rest = messages.filter((message) => message.role !== 'tool');
  const input: TurnInput = rest.length === 0 ? { message: '', seedHistory: [] } : splitConversation(rest, now, 'input');
  if (input.seedHistory.length > 0) {
    throw new GatewayError(
      'invalid_params',
      "With 'previous_response_id', 'input' holds only function call outputs and the new message; earlier turns come from the previous response",
      { param: 'input' },
    );
  }
  return toolOutputs.length === 0 ? input : { ...input, toolOutputs };
}

function toolChoiceOf(body: ResponsesRequest): WireToolChoice | undefined {
  const choice = body.tool_choice;
  // A choice that forces a call cannot be met when no call may be made.
  if (body.max_tool_calls === 0 && choice !== undefined && choice !== 'auto' && choice !== 'none') {
    throw new GatewayError(
      'invalid_params',
      "Invalid value for 'tool_choice': it forces a tool call, and 'max_tool_calls' is 0",
      { param: 'tool_choice' },
    );
  }
  if (choice === undefined || typeof choice === 'string') return choice;
  if (!(body.tools ?? []).some((tool) => tool.name === choice.name)) {
    throw new GatewayError(
      'invalid_params',
      `Invalid value for 'tool_choice': no tool named '${choice.name}' in 'tools'`,
      { param: 'tool_choice' },
    );
  }
  return { name: choice.name };
}

export function responsesSettings(body: ResponsesRequest): CallSettings {
  const settings: CallSettings = {};
  const toolChoice = toolChoiceOf(body);
  const format = body.text?.format;
  if (body.temperature != null) settings.temperature = body.temperature;
  if (body.top_p != null) settings.topP = body.top_p;
  if (body.max_output_tokens != null) settings.maxOutputTokens = body.max_output_tokens;
  if (format !== undefined) settings.responseFormat = responseFormatOf(format);
  if (toolChoice !== undefined) settings.toolChoice = toolChoice;
  if (body.parallel_tool_calls != null) settings.parallelToolCalls = body.parallel_tool_calls;
  if (body.reasoning?.effort != null) settings.reasoningEffort = body.reasoning.effort;
  if (body.text?.verbosity != null) settings.verbosity = body.text.verbosity;
  addProviderHints(settings, body);
  return settings;
}

export function responsesClientTools(body: ResponsesRequest) {
  return clientToolSpecs(body.tools ?? [], 'tools');
}

/** Where each CallSettings path comes from in a Responses request. */
export const RESPONSES_SETTING_PARAMS: Readonly<Record<string, string>> = {
  temperature: 'temperature',
  topP: 'top_p',
  maxOutputTokens: 'max_output_tokens',
  'responseFormat.json_object': 'text.format',
  'responseFormat.json_schema': 'text.format',
  parallelToolCalls: 'parallel_tool_calls',
  toolChoice: 'tool_choice',
  reasoningEffort: 'reasoning.effort',
  verbosity: 'text.verbosity',
  ...PROVIDER_HINT_PARAMS,
};
