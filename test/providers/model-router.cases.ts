// The conformance suite every provider type must pass against the fake LLM server: streaming, tools, usage, wire fields.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors.js';
import type { ModelRef } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../support/fake-llm-server.js';
import { callRequest, collect, createRouterFixture, finishOf, textOf, type RouterFixture } from './router-fixture.js';

/** How to read the fields the suite asserts on from one wire protocol's request body. */
export interface WireReader {
  type: 'openai-compatible' | 'openai' | 'anthropic';
  system(body: Record<string, unknown>): string | undefined;
  maxTokens(body: Record<string, unknown>): unknown;
  toolNames(body: Record<string, unknown>): string[];
  /** The messages after the system prompt, one line per message part. */
  turns(body: Record<string, unknown>): string[];
  /** What `turns` gives for the suite's transcript with tool calls and results. */
  expectedToolTranscript: string[];
}

const PRICED_MODEL = { id: 'fake-model', cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };

function bodyOf(request: RecordedRequest | undefined): Record<string, unknown> {
  const body = request?.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('no JSON body recorded');
  return { ...body };
}

export function describeProviderConformance(wire: WireReader): void {
  describe(`model router with a ${wire.type} provider`, () => {
    let llm: FakeLlm;
    let fixture: RouterFixture;
    const ref: ModelRef = { provider: 'main', modelId: 'fake-model' };

    beforeAll(async () => {
      llm = await startFakeLlm();
    });
    afterAll(async () => {
      await llm.close();
    });
    beforeEach(() => {
      llm.reset();
      fixture = createRouterFixture({
        main: { type: wire.type, baseUrl: llm.baseUrl, apiKey: 'test-key', models: [PRICED_MODEL] },
      });
    });

    it('streams the text deltas in order and finishes with usage, cost and the answering model', async () => {
      llm.script({ text: 'Hello from the fake model', chunks: 4, usage: { inputTokens: 1000, outputTokens: 200 } });
      const { events, error } = await collect(fixture.router.stream(callRequest(ref)));
      expect(error).toBeUndefined();
      expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(4);
      expect(textOf(events)).toBe('Hello from the fake model');
      const finish = finishOf(events);
      expect(finish.finishReason).toBe('stop');
      expect(finish.model).toEqual(ref);
      expect(finish.usage).toMatchObject({ inputTokens: 1000, outputTokens: 200, cacheReadTokens: 0 });
      expect(finish.costUsd).toBeCloseTo((1000 * 3 + 200 * 15) / 1e6, 12);
      expect(events.at(-1)).toBe(finish);
    });

    it('bills cached prompt tokens at the cache-read price and counts them as cache hits', async () => {
      llm.script({ text: 'cached', usage: { inputTokens: 1000, outputTokens: 10, cacheReadTokens: 600 } });
      const finish = finishOf((await collect(fixture.router.stream(callRequest(ref)))).events);
      expect(finish.usage.cacheReadTokens).toBe(600);
      expect(finish.costUsd).toBeCloseTo((400 * 3 + 600 * 0.3 + 10 * 15) / 1e6, 12);
      expect(fixture.router.cacheStats('default')).toEqual({ hits: 1, misses: 0, hitRate: 1, cachedTokens: 600 });
    });

    it('turns tool calls into tool-call events with parsed input objects', async () => {
      llm.script({
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris', days: 2 } },
          { id: 'call_b', name: 'memory_search', arguments: { query: 'umbrella' } },
        ],
      });
      const tools = [
        {
          name: 'get_weather',
          description: 'Weather',
          inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'number' } } },
        },
        {
          name: 'memory_search',
          description: 'Search',
          inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
        },
      ];
      const { events } = await collect(fixture.router.stream(callRequest(ref, { tools })));
      expect(events.filter((event) => event.type === 'tool-call')).toEqual([
        { type: 'tool-call', toolCallId: 'call_a', toolName: 'get_weather', input: { city: 'Paris', days: 2 } },
        { type: 'tool-call', toolCallId: 'call_b', toolName: 'memory_search', input: { query: 'umbrella' } },
      ]);
      expect(finishOf(events).finishReason).toBe('tool-calls');
    });

    it('passes tool arguments that are not valid JSON through as their raw text, for the turn loop to refuse', async () => {
      llm.script({ toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"city": ' }] });
      const tools = [
        {
          name: 'get_weather',
          description: 'Weather',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ];
      const { events, error } = await collect(fixture.router.stream(callRequest(ref, { tools })));
      expect(error).toBeUndefined();
      expect(events.find((event) => event.type === 'tool-call')).toMatchObject({
        toolName: 'get_weather',
        input: '{"city": ',
      });
    });

    it('forwards the system prompt, temperature, max output tokens and tools', async () => {
      const tools = [
        { name: 'memory_store', description: 'Store a memory', inputSchema: { type: 'object', properties: {} } },
      ];
      await collect(
        fixture.router.stream(
          callRequest(ref, { system: 'Be terse.', settings: { temperature: 0.25, maxOutputTokens: 321 }, tools }),
        ),
      );
      const body = bodyOf(llm.chatRequests()[0]);
      expect(body.model).toBe('fake-model');
      expect(body.stream).toBe(true);
      expect(wire.system(body)).toBe('Be terse.');
      expect(body.temperature).toBe(0.25);
      expect(wire.maxTokens(body)).toBe(321);
      expect(wire.toolNames(body)).toEqual(['memory_store']);
    });

    it('sends the transcript with assistant tool calls and tool results (errors flagged)', async () => {
      const messages = [
        { role: 'system' as const, content: 'Summary of earlier turns.', timestamp: 0 },
        { role: 'user' as const, content: 'What is the weather?', timestamp: 1 },
        {
          role: 'assistant' as const,
          content: 'Checking.',
          toolCalls: [
            { id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
            { id: 'call_2', name: 'get_weather', input: { city: 'Oslo' } },
          ],
          timestamp: 2,
        },
        {
          role: 'tool' as const,
          toolCallId: 'call_1',
          toolName: 'get_weather',
          content: 'sunny',
          isError: false,
          timestamp: 3,
        },
        {
          role: 'tool' as const,
          toolCallId: 'call_2',
          toolName: 'get_weather',
          content: 'city not found',
          isError: true,
          timestamp: 4,
        },
      ];
      const tools = [
        {
          name: 'get_weather',
          description: 'Weather',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ];
      const { error } = await collect(fixture.router.stream(callRequest(ref, { system: 'Base.', messages, tools })));
      expect(error).toBeUndefined();
      const body = bodyOf(llm.chatRequests()[0]);
      expect(wire.system(body)).toBe('Base.\n\nSummary of earlier turns.');
      expect(wire.turns(body)).toEqual(wire.expectedToolTranscript);
    });

    it('reports a connection drop after output started as upstream_failed, without fallback', async () => {
      llm.script({ text: 'one two three four', dropAfterChunks: 2, chunkDelayMs: 20 });
      const fallback: ModelRef = { provider: 'main', modelId: 'other-model' };
      const { events, error } = await collect(fixture.router.stream(callRequest(ref, { fallbacks: [fallback] })));
      expect(textOf(events)).toBe('one two ');
      expect(isGatewayError(error) && error.kind).toBe('upstream_failed');
      expect(llm.chatRequests()).toHaveLength(1);
      expect(fixture.eventsNamed('model:fallback_attempt')).toEqual([]);
    });

    it("rethrows the caller's abort as-is and stops the upstream request", async () => {
      llm.script({ text: 'slow reply that never ends', chunkDelayMs: 200 });
      const controller = new AbortController();
      const reason = new Error('caller went away');
      const stream = fixture.router.stream(callRequest(ref, { signal: controller.signal }));
      const seen: string[] = [];
      const outcome = (async () => {
        for await (const event of stream) {
          if (event.type === 'text-delta') {
            seen.push(event.text);
            controller.abort(reason);
          }
        }
      })();
      await expect(outcome).rejects.toBe(reason);
      expect(seen).toEqual(['slow ']);
      expect(fixture.router.breakerState('main')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    });

    it('marks the catalog entry validated after a successful call', async () => {
      expect(fixture.router.entry(ref)).toMatchObject({ validated: false, validatedAt: null });
      await collect(fixture.router.stream(callRequest(ref)));
      expect(fixture.router.entry(ref)).toMatchObject({
        validated: true,
        validatedAt: new Date(fixture.clock.now).toISOString(),
      });
    });

    it('answers models.test with a real non-streaming round trip', async () => {
      llm.script({ text: 'pong' });
      const result = await fixture.router.test(ref, new AbortController().signal);
      expect(result).toMatchObject({ ok: true, provider: 'main' });
      expect(llm.chatRequests()[0]?.isStream).toBe(false);
      llm.script({ status: 503 });
      expect(await fixture.router.test(ref, new AbortController().signal)).toMatchObject({
        ok: false,
        error: 'server (HTTP 503)',
      });
    });
  });
}
