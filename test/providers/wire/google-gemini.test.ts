// The Gemini adapter against the fake server: conformance plus wire specifics (paths, thought signatures, RetryInfo, embeddings).
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
  type WireBody,
  type WireProtocolCase,
} from './wire-fixture.js';

function systemOf(body: WireBody): unknown {
  const instruction = body.systemInstruction;
  if (instruction === undefined) return undefined;
  if (
    typeof instruction !== 'object' ||
    instruction === null ||
    !('parts' in instruction) ||
    !Array.isArray(instruction.parts)
  )
    throw new Error('malformed systemInstruction');
  return instruction.parts
    .map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part ? part.text : ''))
    .join('');
}

function toolChoiceOf(body: WireBody): unknown {
  const config = body.toolConfig;
  return typeof config === 'object' && config !== null && 'functionCallingConfig' in config
    ? config.functionCallingConfig
    : undefined;
}

const geminiCase: WireProtocolCase = {
  name: 'google',
  type: 'google',
  baseUrl: (llm) => llm.geminiBaseUrl,
  endpoint: 'google-gemini',
  authHeader: ['x-goog-api-key', 'test-key'],
  hasToolCallIds: false,
  hasRawArguments: false,
  canOmitUsage: true,
  system: systemOf,
  conversation: (body) => body.contents,
  roundTrip: [
    { role: 'user', parts: [{ text: 'What is the weather?' }] },
    {
      role: 'model',
      parts: [
        { text: 'Checking.' },
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
        { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: 'sunny' } } },
        { functionResponse: { name: 'get_weather', response: { error: 'city not found' } } },
      ],
    },
    { role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: 'noon' } } }] },
    { role: 'user', parts: [{ text: 'Thanks' }] },
  ],
  sampling: {
    present: {
      generationConfig: {
        temperature: 0.3,
        topP: 0.9,
        maxOutputTokens: 321,
        stopSequences: ['END'],
        seed: 7,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
      },
    },
    absent: ['temperature', 'stream', 'model'],
  },
  structured: {
    generationConfig: { responseMimeType: 'application/json', responseJsonSchema: ANSWER_SCHEMA },
    tools: [
      {
        functionDeclarations: TOOLS.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.inputSchema,
        })),
      },
    ],
    toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
  },
  toolChoice: toolChoiceOf,
  toolChoices: { auto: { mode: 'AUTO' }, none: { mode: 'NONE' }, required: { mode: 'ANY' } },
  usage: {
    script: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60 },
    expected: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 0 },
  },
  finishReasons: [
    { reply: { finishReason: 'stop' }, expected: 'stop' },
    { reply: { finishReason: 'length' }, expected: 'length' },
    { reply: { toolCalls: [{ name: 'get_time', arguments: {} }] }, expected: 'tool-calls' },
    { reply: { finishReason: 'content_filter' }, expected: 'content-filter' },
    { reply: { wireFinishReason: 'RECITATION' }, expected: 'content-filter' },
    { reply: { wireFinishReason: 'MALFORMED_FUNCTION_CALL' }, expected: 'other' },
    { reply: { wireFinishReason: 'OTHER' }, expected: 'other' },
  ],
  unsupportedAll: [
    'sampling.logitBias',
    'parallelToolCalls',
    'reasoningEffort',
    'serviceTier',
    'promptCacheKey',
    'safetyIdentifier',
    'verbosity',
  ],
  errorTypes: { 401: 'UNAUTHENTICATED', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL' },
  canEmbed: true,
};

describeWireConformance(geminiCase);

describe('google-gemini wire specifics', () => {
  const fixture = useWireFixture(geminiCase);

  it('streams from models/<id>:streamGenerateContent?alt=sse with only the fields the request sets', async () => {
    await collect(fixture.adapter.stream(callRequest({ modelId: 'models/gemini-2.5-flash' })));
    const request = fixture.llm.chatRequests()[0];
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(request?.query).toBe('alt=sse');
    expect(bodyOf(fixture.llm)).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hello?' }] }] });
  });

  it('replays a Gemini 3 function call with the documented signature sentinel, on the first call of a turn only', async () => {
    const messages = [
      { role: 'user' as const, content: 'go', timestamp: 0 },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'get_time', input: {} },
          { id: 'call_2', name: 'get_time', input: {} },
        ],
        timestamp: 1,
      },
      {
        role: 'tool' as const,
        toolCallId: 'call_1',
        toolName: 'get_time',
        content: 'noon',
        isError: false,
        timestamp: 2,
      },
      {
        role: 'tool' as const,
        toolCallId: 'call_2',
        toolName: 'get_time',
        content: 'noon',
        isError: false,
        timestamp: 3,
      },
    ];
    await collect(fixture.adapter.stream(callRequest({ modelId: 'gemini-3-pro-preview', messages, tools: TOOLS })));
    await collect(fixture.adapter.stream(callRequest({ modelId: 'gemini-2.5-pro', messages, tools: TOOLS })));
    const modelTurn = (index: number): unknown =>
      Array.isArray(bodyOf(fixture.llm, index).contents) ? bodyOf(fixture.llm, index).contents : [];
    expect(modelTurn(0)).toContainEqual({
      role: 'model',
      parts: [
        { functionCall: { name: 'get_time', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
        { functionCall: { name: 'get_time', args: {} } },
      ],
    });
    expect(modelTurn(1)).toContainEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'get_time', args: {} } }, { functionCall: { name: 'get_time', args: {} } }],
    });
  });

  it("reads the wait of a 429 from Gemini's RetryInfo when there is no Retry-After header", async () => {
    fixture.llm.script({
      status: 429,
      errorBody: {
        error: {
          code: 429,
          message: 'Resource has been exhausted',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34s' }],
        },
      },
    });
    const failure = callError((await collect(fixture.adapter.stream(callRequest()))).error);
    expect(failure).toMatchObject({
      kind: 'rate_limit',
      statusCode: 429,
      retryAfterMs: 34_000,
      detail: 'RESOURCE_EXHAUSTED: Resource has been exhausted',
    });
  });

  it('embeds one text with embedContent and several with batchEmbedContents', async () => {
    const signal = new AbortController().signal;
    await fixture.adapter.embed?.({ modelId: 'text-embedding-004', texts: ['one'], signal });
    await fixture.adapter.embed?.({ modelId: 'text-embedding-004', texts: ['a', 'b'], signal });
    expect(fixture.llm.requests.map((request) => request.path)).toEqual([
      '/v1beta/models/text-embedding-004:embedContent',
      '/v1beta/models/text-embedding-004:batchEmbedContents',
    ]);
    expect(fixture.llm.requests[0]?.body).toEqual({ content: { parts: [{ text: 'one' }] } });
    expect(fixture.llm.requests[1]?.body).toEqual({
      requests: [
        { model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } },
        { model: 'models/text-embedding-004', content: { parts: [{ text: 'b' }] } },
      ],
    });
  });
});
