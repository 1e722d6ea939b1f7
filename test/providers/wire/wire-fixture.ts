// Shared pieces of the wire adapter tests: the protocol case shape, requests, fixtures and readers of what the fake server received.
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import {
  createWireAdapter,
  ProviderCallError,
  type WireAdapter,
  type WireCallRequest,
  type WireEvent,
} from '../../../src/providers/wire/index.js';
import type { ModelFinishReason, TokenUsage } from '../../../src/providers/types.js';
import type { ProviderType, TranscriptMessage } from '../../../src/providers/index.js';
import {
  startFakeLlm,
  type FakeEndpoint,
  type FakeLlm,
  type ScriptedReply,
  type ScriptedUsage,
} from '../../support/fake-llm-server.js';

export type WireBody = Record<string, unknown>;

/** What one protocol looks like on the wire; the suite's assertions are written against these readers. */
export interface WireProtocolCase {
  name: string;
  type: ProviderType;
  baseUrl(llm: FakeLlm): string;
  endpoint: FakeEndpoint;
  /** The credential header the protocol sends for apiKey `test-key`. */
  authHeader: [name: string, value: string];
  /** Scripted tool-call ids come back as sent; Gemini sends none, so the adapter makes them up. */
  hasToolCallIds: boolean;
  /** Arguments that are not JSON travel as text (OpenAI, Anthropic); Gemini only ever sends parsed objects. */
  hasRawArguments: boolean;
  /** The protocol can leave usage out entirely (OpenAI-compatible servers, Gemini); Anthropic always sends it. */
  canOmitUsage: boolean;
  /** The system prompt as the protocol carries it, undefined when absent. */
  system(body: WireBody): unknown;
  /** Everything but the system prompt, for exact comparison with `roundTrip`. */
  conversation(body: WireBody): unknown;
  /** The wire form of ROUND_TRIP_TRANSCRIPT. */
  roundTrip: unknown;
  /** The fields SAMPLING becomes (compared with toMatchObject) and the ones that must be absent. */
  sampling: { present: WireBody; absent: string[] };
  /** The fields STRUCTURED becomes. */
  structured: WireBody;
  /** tool choice as sent for each value; `undefined` when nothing is sent. */
  toolChoice(body: WireBody): unknown;
  toolChoices: { auto: unknown; none: unknown; required: unknown };
  usage: { script: ScriptedUsage; expected: TokenUsage };
  finishReasons: { reply: ScriptedReply; expected: ModelFinishReason }[];
  /** What unsupported() names for a request that sets every optional field. */
  unsupportedAll: string[];
  /** A word of the provider's error type expected in the detail for these statuses. */
  errorTypes: Record<number, string>;
  canEmbed: boolean;
}

const tools = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  { name: 'get_time', description: 'The time', inputSchema: { type: 'object', properties: {} } },
];

export const ROUND_TRIP_TRANSCRIPT: TranscriptMessage[] = [
  { role: 'system', content: 'Summary of earlier turns.', timestamp: 0 },
  { role: 'user', content: 'What is the weather?', timestamp: 1 },
  {
    role: 'assistant',
    content: 'Checking.',
    toolCalls: [
      { id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      { id: 'call_2', name: 'get_weather', input: { city: 'Oslo' } },
    ],
    timestamp: 2,
  },
  { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: 'sunny', isError: false, timestamp: 3 },
  {
    role: 'tool',
    toolCallId: 'call_2',
    toolName: 'get_weather',
    content: 'city not found',
    isError: true,
    timestamp: 4,
  },
  { role: 'assistant', content: '', timestamp: 5 },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_3', name: 'get_time', input: {} }], timestamp: 6 },
  { role: 'tool', toolCallId: 'call_3', toolName: 'get_time', content: 'noon', isError: false, timestamp: 7 },
  { role: 'user', content: 'Thanks', timestamp: 8 },
];

export const SAMPLING = {
  temperature: 0.3,
  topP: 0.9,
  maxOutputTokens: 321,
  stop: ['END'],
  seed: 7,
  presencePenalty: 0.5,
  frequencyPenalty: 0.25,
};

export const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
};

export const STRUCTURED: Partial<WireCallRequest> = {
  tools,
  responseFormat: { type: 'json_schema', name: 'answer', schema: ANSWER_SCHEMA, strict: true },
  toolChoice: { name: 'get_weather' },
  parallelToolCalls: false,
};

export const TOOLS = tools;

export function callRequest(overrides: Partial<WireCallRequest> = {}): WireCallRequest {
  return {
    modelId: 'fake-model',
    system: undefined,
    messages: [{ role: 'user', content: 'Hello?', timestamp: 0 }],
    tools: [],
    sampling: {},
    signal: new AbortController().signal,
    ...overrides,
  };
}

export async function collect(stream: AsyncIterable<WireEvent>): Promise<{ events: WireEvent[]; error: unknown }> {
  const events: WireEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

export const textOf = (events: readonly WireEvent[]): string =>
  events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
export const finishOf = (events: readonly WireEvent[]): WireEvent | undefined =>
  events.find((event) => event.type === 'finish');

export function callError(error: unknown): ProviderCallError {
  expect(error).toBeInstanceOf(ProviderCallError);
  if (!(error instanceof ProviderCallError)) throw new Error('not a ProviderCallError');
  return error;
}

export function bodyOf(llm: FakeLlm, index = 0): WireBody {
  const body = llm.chatRequests()[index]?.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`no chat request #${index}`);
  return Object.fromEntries(Object.entries(body));
}

export interface WireFixture {
  llm: FakeLlm;
  adapter: WireAdapter;
}

/** Starts one fake server and one adapter per suite; each test starts from an empty script. */
export function useWireFixture(protocol: WireProtocolCase): WireFixture {
  let llm: FakeLlm | undefined;
  let adapter: WireAdapter | undefined;
  beforeAll(async () => {
    llm = await startFakeLlm();
    adapter = createWireAdapter(protocol.type, {
      baseUrl: protocol.baseUrl(llm),
      apiKey: 'test-key',
      timeoutMs: 5_000,
      headers: { 'X-Extra': 'yes' },
    });
  });
  afterAll(async () => {
    await adapter?.close();
    await llm?.close();
  });
  beforeEach(() => llm?.reset());
  return {
    get llm() {
      if (llm === undefined) throw new Error('fixture not started');
      return llm;
    },
    get adapter() {
      if (adapter === undefined) throw new Error('fixture not started');
      return adapter;
    },
  };
}
