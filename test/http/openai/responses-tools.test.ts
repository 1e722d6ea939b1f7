// /v1/responses with function tools, function_call_output items, text.format and the fields the official SDK sends.
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

interface UpstreamBody {
  messages?: Record<string, unknown>[];
  tools?: { function: { name: string } }[];
  [field: string]: unknown;
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

describe('/v1/responses: function tools and structured output', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({ llmBaseUrl: llm.baseUrl });
    client = new OpenAI({ baseURL: `${fx.url}/v1`, apiKey: fx.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
  });

  const bodies = (): UpstreamBody[] => llm.chatRequests().map((request) => request.body as UpstreamBody);

  it('runs a tool loop over previous_response_id: function_call out, function_call_output in', async () => {
    llm.script(
      { toolCalls: [{ id: 'call_r1', name: 'get_weather', arguments: { city: 'Lima' } }], finishReason: 'tool_calls' },
      { text: 'Cloudy in Lima.' },
    );
    const first = await client.responses.create({
      model: 'local/small',
      input: 'Weather in Lima?',
      tools: [weatherTool],
      parallel_tool_calls: true,
    });
    expect(first.output).toEqual([
      {
        type: 'function_call',
        id: 'fc_call_r1',
        call_id: 'call_r1',
        name: 'get_weather',
        arguments: '{"city":"Lima"}',
        status: 'completed',
      },
    ]);
    expect(first).toMatchObject({
      status: 'completed',
      tools: [weatherTool],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      store: true,
    });
    expect(bodies()[0]).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', strict: true } }],
      parallel_tool_calls: true,
    });

    const second = await client.responses.create({
      model: 'local/small',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_r1', output: '{"sky":"cloudy"}' }],
      tools: [weatherTool],
    });
    expect(second.output_text).toBe('Cloudy in Lima.');
    expect(bodies()[1]?.messages?.slice(-3)).toEqual([
      { role: 'user', content: 'Weather in Lima?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_r1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_r1', content: '{"sky":"cloudy"}' },
    ]);
  });

  it('takes a whole conversation with function_call and function_call_output items and no previous response', async () => {
    llm.script({ text: 'Warm in Cairo.' });
    const response = await client.responses.create({
      model: 'local/small',
      input: [
        { role: 'user', content: 'Weather in Cairo?' },
        { type: 'function_call', call_id: 'call_c', name: 'get_weather', arguments: '{"city":"Cairo"}' },
        { type: 'function_call_output', call_id: 'call_c', output: 'hot' },
      ],
      tools: [weatherTool],
    });
    expect(response.output_text).toBe('Warm in Cairo.');
    expect(bodies()[0]?.messages?.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_c', content: 'hot' });
  });

  it('streams function calls as output items with their argument events', async () => {
    llm.script({
      toolCalls: [{ id: 'call_st', name: 'get_weather', arguments: { city: 'Quito' } }],
      finishReason: 'tool_calls',
    });
    const stream = await client.responses.create({
      model: 'local/small',
      input: 'Quito?',
      tools: [weatherTool],
      stream: true,
    });
    const types: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') final = event.response;
    }
    expect(types).toContain('response.function_call_arguments.done');
    expect(final?.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(final?.output[1]).toMatchObject({ call_id: 'call_st', arguments: '{"city":"Quito"}' });
  });

  it('answers responses.parse with text.format from a zod schema, forwarding the schema', async () => {
    llm.script({ text: '{"city":"Lima","celsius":18}' });
    const parsed = await client.responses.parse({
      model: 'local/small',
      input: 'Weather in Lima as JSON',
      text: { format: zodTextFormat(z.object({ city: z.string(), celsius: z.number() }), 'weather') },
    });
    expect(parsed.output_parsed).toEqual({ city: 'Lima', celsius: 18 });
    expect(bodies()[0]?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'weather', schema: { required: ['city', 'celsius'] } },
    });
  });

  it('accepts the fields the SDK and LangChain send by default (text: {}, store, top_p, user)', async () => {
    llm.script({ text: 'ok' });
    const response = await client.responses.create({
      model: 'local/small',
      input: 'hi',
      text: {},
      store: true,
      top_p: 0.5,
      user: 'u-1',
    });
    expect(response).toMatchObject({ output_text: 'ok', top_p: 0.5, user: 'u-1', text: { format: { type: 'text' } } });
    expect(bodies()[0]?.top_p).toBe(0.5);
  });

  it('keeps nothing with store: false, so the response cannot be continued', async () => {
    llm.script({ text: 'not kept' });
    const response = await client.responses.create({ model: 'local/small', input: 'hi', store: false });
    expect(response).toMatchObject({ store: false });
    const continued = await client.responses
      .create({ model: 'local/small', input: 'again', previous_response_id: response.id })
      .catch((error: unknown) => error);
    expect(continued).toMatchObject({ status: 404, param: 'previous_response_id' });
  });

  it('refuses an output for a call nothing is waiting on', async () => {
    llm.script({ text: 'plain' });
    const first = await client.responses.create({ model: 'local/small', input: 'hi' });
    const refused = await client.responses
      .create({
        model: 'local/small',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: 'call_unknown', output: 'x' }],
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
  });
});
