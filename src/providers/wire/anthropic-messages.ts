// The Anthropic Messages wire: request building from our transcript, streamed through AnthropicMessagesDecoder.
import type { TranscriptMessage } from '../transcript.js';
import { systemPromptOf } from './decoding.js';
import type { WireHttp } from './http.js';
import { AnthropicMessagesDecoder } from './anthropic-messages-decoder.js';
import { streamCall } from './stream-call.js';
import type { WireAdapter, WireCallRequest, WireSetup, WireToolChoice } from './types.js';

/** The API version header every request carries; the SSE event names and usage fields below are this version's. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Used when a request sets no maxOutputTokens: Anthropic requires max_tokens, and 4096 fits every current model. */
export const ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS = 4096;

type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: true };

type AnthropicMessage =
  { role: 'user'; content: string | AnthropicBlock[] } | { role: 'assistant'; content: string | AnthropicBlock[] };

/** tool_use.input must be an object; arguments the model sent as invalid JSON (kept as raw text) go back empty. */
function objectInput(input: unknown): unknown {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
}

/**
 * The transcript as Messages: system text is lifted out (systemPromptOf), consecutive tool results become
 * one user message of tool_result blocks, and an assistant message with neither text nor tool calls is
 * dropped, since Anthropic refuses empty text blocks.
 */
export function anthropicMessages(transcript: readonly TranscriptMessage[]): AnthropicMessage[] {
  const messages: AnthropicMessage[] = [];
  let results: AnthropicBlock[] | undefined;
  for (const message of transcript) {
    if (message.role !== 'tool') results = undefined;
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
        const blocks: AnthropicBlock[] = message.content.length > 0 ? [{ type: 'text', text: message.content }] : [];
        for (const call of calls)
          blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: objectInput(call.input) });
        messages.push({ role: 'assistant', content: blocks });
        break;
      }
      case 'tool': {
        const block: AnthropicBlock = message.isError
          ? { type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, is_error: true }
          : { type: 'tool_result', tool_use_id: message.toolCallId, content: message.content };
        if (results === undefined) {
          results = [block];
          messages.push({ role: 'user', content: results });
        } else {
          results.push(block);
        }
        break;
      }
    }
  }
  return messages;
}

function toolChoiceOf(
  choice: WireToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
): Record<string, unknown> | undefined {
  const isSerial = parallelToolCalls === false;
  if (choice === undefined) return isSerial ? { type: 'auto', disable_parallel_tool_use: true } : undefined;
  // `none` takes no parallelism flag: no tool is called at all.
  if (choice === 'none') return { type: 'none' };
  const base =
    choice === 'auto'
      ? { type: 'auto' }
      : choice === 'required'
        ? { type: 'any' }
        : { type: 'tool', name: choice.name };
  return isSerial ? { ...base, disable_parallel_tool_use: true } : base;
}

export function anthropicBody(request: WireCallRequest, defaultMaxOutputTokens: number): Record<string, unknown> {
  const { sampling } = request;
  const body: Record<string, unknown> = {
    model: request.modelId,
    max_tokens: sampling.maxOutputTokens ?? defaultMaxOutputTokens,
    messages: anthropicMessages(request.messages),
    stream: request.stream !== false,
  };
  const system = systemPromptOf(request.system, request.messages);
  if (system !== undefined) body.system = system;
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.stop !== undefined) body.stop_sequences = sampling.stop;
  // Anthropic's field for the same purpose as OpenAI's safety_identifier: an opaque end-user id for abuse detection.
  if (request.safetyIdentifier !== undefined) body.metadata = { user_id: request.safetyIdentifier };
  // Structured output is `output_config.format` (GA); json_object has no Anthropic form and is refused by unsupported().
  if (request.responseFormat?.type === 'json_schema')
    body.output_config = { format: { type: 'json_schema', schema: request.responseFormat.schema } };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    }));
    const toolChoice = toolChoiceOf(request.toolChoice, request.parallelToolCalls);
    if (toolChoice !== undefined) body.tool_choice = toolChoice;
  }
  return body;
}

/** The key as `x-api-key`, and the API version on every request (a keyless server still reads it). */
export function anthropicAuth(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined
    ? { 'anthropic-version': ANTHROPIC_VERSION }
    : { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION };
}

export function createAnthropicMessagesAdapter(http: WireHttp, setup: WireSetup): WireAdapter {
  const defaultMaxOutputTokens = setup.defaultMaxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS;
  const messagesPath = `${http.basePath}/messages`;
  return {
    protocol: 'anthropic-messages',
    http,
    stream(request) {
      return streamCall(
        http,
        messagesPath,
        JSON.stringify(anthropicBody(request, defaultMaxOutputTokens)),
        request.signal,
        new AnthropicMessagesDecoder(request.reportToolInput === true),
      );
    },
    unsupported: setup.unsupported,
    close: () => http.close(),
  };
}
