// LangChain JS and the Vercel AI SDK as clients of /v1, as their users call them: tools, structured output, the Responses API.
import { createOpenAI } from '@ai-sdk/openai';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

interface UpstreamBody {
  messages?: Record<string, unknown>[];
  tools?: { function: { name: string } }[];
  tool_choice?: unknown;
  response_format?: unknown;
  [field: string]: unknown;
}

const Weather = z.object({ city: z.string(), celsius: z.number() });

describe('framework clients of /v1', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({ llmBaseUrl: llm.baseUrl });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
  });

  const bodies = (): UpstreamBody[] => llm.chatRequests().map((request) => request.body as UpstreamBody);
  const langchain = (options: { useResponsesApi?: boolean } = {}) =>
    new ChatOpenAI({
      model: 'local/small',
      apiKey: fx.tokens.api,
      configuration: { baseURL: `${fx.url}/v1` },
      maxRetries: 0,
      ...options,
    });

  describe('LangChain (@langchain/openai)', () => {
    const getWeather = langchainTool(async ({ city }: { city: string }) => `sunny in ${city}`, {
      name: 'get_weather',
      description: 'Weather in a city',
      schema: z.object({ city: z.string() }),
    });

    it("round-trips bindTools: the model's tool call comes back, the ToolMessage goes up", async () => {
      llm.script(
        {
          toolCalls: [{ id: 'call_lc', name: 'get_weather', arguments: { city: 'Bern' } }],
          finishReason: 'tool_calls',
        },
        { text: 'Sunny in Bern.' },
      );
      const model = langchain().bindTools([getWeather]);
      const question = new HumanMessage('Weather in Bern?');
      const call = await model.invoke([question]);
      expect(call.tool_calls).toEqual([
        expect.objectContaining({ id: 'call_lc', name: 'get_weather', args: { city: 'Bern' } }),
      ]);
      expect(bodies()[0]?.tools?.map((entry) => entry.function.name)).toEqual(['get_weather']);

      const answer = await model.invoke([
        question,
        call,
        new ToolMessage({ tool_call_id: 'call_lc', content: await getWeather.invoke({ city: 'Bern' }) }),
      ]);
      expect(answer.content).toBe('Sunny in Bern.');
      expect(bodies()[1]?.messages?.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_lc',
        content: 'sunny in Bern',
      });
    });

    it("answers withStructuredOutput with the schema's object", async () => {
      llm.setDefaultReply((request) => {
        const body = request.body as UpstreamBody;
        // Whichever method LangChain picks for this model: a forced tool call or a JSON schema response format.
        return body.tools === undefined
          ? { text: '{"city":"Bern","celsius":12}' }
          : {
              toolCalls: [{ name: body.tools[0]!.function.name, arguments: { city: 'Bern', celsius: 12 } }],
              finishReason: 'tool_calls',
            };
      });
      const structured = langchain().withStructuredOutput(Weather, { name: 'weather' });
      expect(await structured.invoke('Weather in Bern?')).toEqual({ city: 'Bern', celsius: 12 });
      const [body] = bodies();
      expect(body?.response_format ?? body?.tool_choice).toBeDefined();
    });

    it('talks to /v1/responses with useResponsesApi', async () => {
      llm.script({ text: 'Hello from responses' });
      const answer = await langchain({ useResponsesApi: true }).invoke('hi');
      expect(answer.text).toBe('Hello from responses');
      expect(llm.chatRequests()).toHaveLength(1);
    });
  });

  describe('Vercel AI SDK (@ai-sdk/openai)', () => {
    const provider = () => createOpenAI({ baseURL: `${fx.url}/v1`, apiKey: fx.tokens.api });
    const weather = tool({
      description: 'Weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, sky: 'clear' }),
    });

    it('runs generateText with a tool over chat completions: the SDK executes it and sends the result back', async () => {
      llm.script(
        { toolCalls: [{ id: 'call_ai', name: 'weather', arguments: { city: 'Oslo' } }], finishReason: 'tool_calls' },
        { text: 'Clear in Oslo.' },
      );
      const result = await generateText({
        model: provider().chat('local/small'),
        tools: { weather },
        stopWhen: stepCountIs(3),
        prompt: 'Weather in Oslo?',
      });
      expect(result.text).toBe('Clear in Oslo.');
      expect(result.steps[0]?.toolResults[0]).toMatchObject({
        toolName: 'weather',
        output: { city: 'Oslo', sky: 'clear' },
      });
      expect(bodies()[1]?.messages?.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_ai',
        content: '{"city":"Oslo","sky":"clear"}',
      });
    });

    it('runs generateText with a tool over the Responses API', async () => {
      llm.script(
        { toolCalls: [{ id: 'call_rs', name: 'weather', arguments: { city: 'Riga' } }], finishReason: 'tool_calls' },
        { text: 'Clear in Riga.' },
      );
      const result = await generateText({
        model: provider().responses('local/small'),
        tools: { weather },
        stopWhen: stepCountIs(3),
        prompt: 'Weather in Riga?',
      });
      expect(result.text).toBe('Clear in Riga.');
      expect(llm.chatRequests()).toHaveLength(2);
    });

    it('answers generateObject with a JSON schema response format', async () => {
      llm.script({ text: '{"city":"Oslo","celsius":3}' });
      const { object } = await generateObject({
        model: provider().chat('local/small'),
        schema: Weather,
        prompt: 'Weather in Oslo as JSON',
      });
      expect(object).toEqual({ city: 'Oslo', celsius: 3 });
      expect(bodies()[0]?.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { schema: { required: ['city', 'celsius'] } },
      });
    });
  });
});
