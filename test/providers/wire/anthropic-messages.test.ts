// The Anthropic Messages adapter against the fake server: conformance plus wire specifics (version header, max_tokens, overload).
import { describe, expect, it } from 'vitest';
import { describeWireConformance } from './adapter.cases.js';
import {
  ANSWER_SCHEMA,
  bodyOf,
  callError,
  callRequest,
  collect,
  TOOLS,
  useWireFixture,
  type WireProtocolCase,
} from './wire-fixture.js';

const anthropicCase: WireProtocolCase = {
  name: 'anthropic',
  type: 'anthropic',
  baseUrl: (llm) => llm.baseUrl,
  endpoint: 'anthropic-messages',
  authHeader: ['x-api-key', 'test-key'],
  hasToolCallIds: true,
  hasRawArguments: true,
  canOmitUsage: false,
  system: (body) => body.system,
  conversation: (body) => body.messages,
  roundTrip: [
    { role: 'user', content: 'What is the weather?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Oslo' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
        { type: 'tool_result', tool_use_id: 'call_2', content: 'city not found', is_error: true },
      ],
    },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'call_3', name: 'get_time', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_3', content: 'noon' }] },
    { role: 'user', content: 'Thanks' },
  ],
  sampling: {
    present: { temperature: 0.3, top_p: 0.9, max_tokens: 321, stop_sequences: ['END'] },
    absent: ['seed', 'presence_penalty', 'frequency_penalty', 'stop', 'stream_options'],
  },
  structured: {
    output_config: { format: { type: 'json_schema', schema: ANSWER_SCHEMA } },
    tools: TOOLS.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })),
    tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
  },
  toolChoice: (body) => body.tool_choice,
  toolChoices: { auto: { type: 'auto' }, none: { type: 'none' }, required: { type: 'any' } },
  usage: {
    script: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 10 },
    expected: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 10 },
  },
  finishReasons: [
    { reply: { finishReason: 'stop' }, expected: 'stop' },
    { reply: { finishReason: 'length' }, expected: 'length' },
    { reply: { toolCalls: [{ name: 'get_time', arguments: {} }] }, expected: 'tool-calls' },
    { reply: { finishReason: 'content_filter' }, expected: 'content-filter' },
    { reply: { wireFinishReason: 'stop_sequence' }, expected: 'stop' },
    { reply: { wireFinishReason: 'model_context_window_exceeded' }, expected: 'length' },
    { reply: { wireFinishReason: 'pause_turn' }, expected: 'other' },
    { reply: { wireFinishReason: 'toString' }, expected: 'other' },
  ],
  unsupportedAll: [
    'sampling.seed',
    'sampling.presencePenalty',
    'sampling.frequencyPenalty',
    'sampling.logitBias',
    'responseFormat.json_object',
    'reasoningEffort',
    'serviceTier',
    'promptCacheKey',
    'verbosity',
  ],
  errorTypes: { 401: 'authentication_error', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' },
  canEmbed: false,
};

describeWireConformance(anthropicCase);

describe('anthropic-messages wire specifics', () => {
  const fixture = useWireFixture(anthropicCase);

  it('sends the API version, the required max_tokens by default, and nothing the request does not set', async () => {
    await collect(fixture.adapter.stream(callRequest()));
    const request = fixture.llm.chatRequests()[0];
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(bodyOf(fixture.llm)).toEqual({
      model: 'fake-model',
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'Hello?' }],
      stream: true,
    });
  });

  it("sends safetyIdentifier as metadata.user_id, Anthropic's opaque end-user id", async () => {
    await collect(fixture.adapter.stream(callRequest({ safetyIdentifier: 'user-hash' })));
    expect(bodyOf(fixture.llm).metadata).toEqual({ user_id: 'user-hash' });
    expect(fixture.adapter.unsupported(callRequest({ safetyIdentifier: 'user-hash' }))).toEqual([]);
  });

  it('serialises tool calls when asked, also without a tool choice, and sends a raw-text input back as an empty object', async () => {
    const messages = [
      { role: 'user' as const, content: 'go', timestamp: 0 },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [{ id: 'call_bad', name: 'get_weather', input: '{"city": ' }],
        timestamp: 1,
      },
      {
        role: 'tool' as const,
        toolCallId: 'call_bad',
        toolName: 'get_weather',
        content: 'Error: invalid arguments',
        isError: true,
        timestamp: 2,
      },
    ];
    await collect(fixture.adapter.stream(callRequest({ tools: TOOLS, parallelToolCalls: false, messages })));
    const body = bodyOf(fixture.llm);
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(body.messages).toContainEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_bad', name: 'get_weather', input: {} }],
    });
  });

  it('keeps the overloaded_error name in the detail of a 529, mid-stream too', async () => {
    fixture.llm.script({ status: 529, errorMessage: 'Overloaded' });
    const answered = callError((await collect(fixture.adapter.stream(callRequest()))).error);
    expect(answered).toMatchObject({ kind: 'server', statusCode: 529 });
    expect(answered.detail).toBe('overloaded_error: Overloaded');
    fixture.llm.script({ text: 'a b', streamError: { afterChunks: 0, status: 529, message: 'Overloaded' } });
    const streamed = callError((await collect(fixture.adapter.stream(callRequest()))).error);
    expect(streamed).toMatchObject({ kind: 'server', statusCode: undefined, detail: 'overloaded_error: Overloaded' });
  });
});
