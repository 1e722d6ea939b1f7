// The OpenAI Chat Completions adapter (types openai and openai-compatible) against the fake server: conformance plus wire specifics.
import { describe, expect, it } from 'vitest';
import { createWireAdapter } from '../../../src/providers/wire/index.js';
import { describeWireConformance } from './adapter.cases.js';
import {
  ANSWER_SCHEMA,
  bodyOf,
  callRequest,
  collect,
  finishOf,
  TOOLS,
  useWireFixture,
  type WireBody,
  type WireProtocolCase,
} from './wire-fixture.js';

const records = (value: unknown): WireBody[] =>
  Array.isArray(value)
    ? value.filter((item): item is WireBody => typeof item === 'object' && item !== null && !Array.isArray(item))
    : [];

function systemOf(body: WireBody): unknown {
  const messages = records(body.messages);
  const systems = messages.filter((message) => message.role === 'system');
  if (systems.length === 0) return undefined;
  // One system message, first: the joined prompt, as every protocol receives it.
  if (systems.length > 1 || messages[0]?.role !== 'system')
    throw new Error('system messages are not one leading message');
  return systems[0]?.content;
}

const call = (id: string, name: string, args: string) => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

function openAiCase(type: 'openai' | 'openai-compatible'): WireProtocolCase {
  const maxTokensField = type === 'openai' ? 'max_completion_tokens' : 'max_tokens';
  return {
    name: type,
    type,
    baseUrl: (llm) => llm.baseUrl,
    endpoint: 'openai-chat',
    authHeader: ['authorization', 'Bearer test-key'],
    hasToolCallIds: true,
    hasRawArguments: true,
    canOmitUsage: true,
    system: systemOf,
    conversation: (body) => records(body.messages).filter((message) => message.role !== 'system'),
    roundTrip: [
      { role: 'user', content: 'What is the weather?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          call('call_1', 'get_weather', '{"city":"Paris"}'),
          call('call_2', 'get_weather', '{"city":"Oslo"}'),
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'city not found' },
      { role: 'assistant', content: null, tool_calls: [call('call_3', 'get_time', '{}')] },
      { role: 'tool', tool_call_id: 'call_3', content: 'noon' },
      { role: 'user', content: 'Thanks' },
    ],
    sampling: {
      present: {
        temperature: 0.3,
        top_p: 0.9,
        [maxTokensField]: 321,
        stop: ['END'],
        seed: 7,
        presence_penalty: 0.5,
        frequency_penalty: 0.25,
      },
      absent: [type === 'openai' ? 'max_tokens' : 'max_completion_tokens'],
    },
    structured: {
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: ANSWER_SCHEMA, strict: true } },
      tools: TOOLS.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      })),
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    },
    toolChoice: (body) => body.tool_choice,
    toolChoices: { auto: 'auto', none: 'none', required: 'required' },
    usage: {
      script: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60 },
      expected: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 0 },
    },
    finishReasons: [
      { reply: { finishReason: 'stop' }, expected: 'stop' },
      { reply: { finishReason: 'length' }, expected: 'length' },
      { reply: { toolCalls: [{ name: 'get_time', arguments: {} }] }, expected: 'tool-calls' },
      { reply: { finishReason: 'content_filter' }, expected: 'content-filter' },
      { reply: { wireFinishReason: 'function_call' }, expected: 'tool-calls' },
      { reply: { wireFinishReason: 'insufficient_system_resource' }, expected: 'other' },
      { reply: { wireFinishReason: 'constructor' }, expected: 'other' },
    ],
    unsupportedAll: [],
    errorTypes: { 401: 'invalid_api_key', 429: 'rate_limit_exceeded', 500: 'server_error' },
    canEmbed: true,
  };
}

describeWireConformance(openAiCase('openai'));
describeWireConformance(openAiCase('openai-compatible'));

describe('openai-chat wire specifics', () => {
  const fixture = useWireFixture(openAiCase('openai-compatible'));

  it('asks for usage in the stream, and sends only the fields the request sets', async () => {
    await collect(fixture.adapter.stream(callRequest()));
    expect(bodyOf(fixture.llm)).toEqual({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'Hello?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends logit_bias, verbosity, service_tier, prompt_cache_key and safety_identifier as OpenAI names them', async () => {
    const settings = { logitBias: { '50256': -100 } };
    await collect(
      fixture.adapter.stream(
        callRequest({
          sampling: settings,
          verbosity: 'low',
          serviceTier: 'flex',
          promptCacheKey: 'cache-key',
          safetyIdentifier: 'user-hash',
        }),
      ),
    );
    expect(bodyOf(fixture.llm)).toMatchObject({
      logit_bias: { '50256': -100 },
      verbosity: 'low',
      service_tier: 'flex',
      prompt_cache_key: 'cache-key',
      safety_identifier: 'user-hash',
    });
  });

  it('reads a tool call without arguments as an empty object, and one without an id gets an id', async () => {
    fixture.llm.script({ toolCalls: [{ id: '', name: 'get_time', arguments: '' }] });
    const { events } = await collect(fixture.adapter.stream(callRequest({ tools: TOOLS })));
    expect(events.find((event) => event.type === 'tool-call')).toEqual({
      type: 'tool-call',
      toolCallId: expect.stringMatching(/^call_.+/),
      toolName: 'get_time',
      input: {},
    });
    expect(finishOf(events)).toMatchObject({ finishReason: 'tool-calls' });
  });

  it('sends the response_format types text and json_object as they are', async () => {
    await collect(fixture.adapter.stream(callRequest({ responseFormat: { type: 'json_object' } })));
    await collect(fixture.adapter.stream(callRequest({ responseFormat: { type: 'text' } })));
    expect(bodyOf(fixture.llm, 0).response_format).toEqual({ type: 'json_object' });
    expect(bodyOf(fixture.llm, 1).response_format).toEqual({ type: 'text' });
  });

  it('sends no credential header to a keyless server', async () => {
    const adapter = createWireAdapter('openai-compatible', { baseUrl: fixture.llm.baseUrl, timeoutMs: 5_000 });
    try {
      await collect(adapter.stream(callRequest()));
      expect(fixture.llm.chatRequests()[0]?.headers.authorization).toBeUndefined();
    } finally {
      await adapter.close();
    }
  });
});
