// /v1/chat/completions with the OpenAI fields real clients send: sampling, structured output, client tools, through the openai SDK.
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/agents/index.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

interface UpstreamBody {
  messages?: Record<string, unknown>[];
  tools?: { function: { name: string; strict?: boolean } }[];
  tool_choice?: unknown;
  [field: string]: unknown;
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('/v1/chat/completions: fields, structured output and client tools', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  let client: OpenAI;
  const clock = defineTool({
    name: 'clock',
    description: 'The time',
    input: z.strictObject({}),
    execute: async () => ({ now: 'noon' }),
  });

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      tools: [clock],
      extraProviders: {
        claude: { type: 'anthropic', baseUrl: llm.baseUrl, apiKey: 'test-key', models: [{ id: 'sonnet' }] },
      },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 4, tools: ['clock'] } },
    });
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

  it('passes the sampling fields and the response format to the provider, and reads developer as system', async () => {
    llm.script({ text: '{"ok":true}' });
    await client.chat.completions.create({
      model: 'local/small',
      messages: [
        { role: 'developer', content: 'Answer in JSON.' },
        { role: 'user', content: 'hi', name: 'ann' },
      ],
      temperature: null,
      top_p: 0.5,
      stop: 'END',
      seed: 7,
      presence_penalty: 0.25,
      frequency_penalty: -0.5,
      max_completion_tokens: 64,
      n: 1,
      user: 'ann@example.com',
      metadata: { team: 'docs' },
      response_format: { type: 'json_object' },
      reasoning_effort: 'low',
      logprobs: false,
    });
    const [body] = bodies();
    expect(body).toMatchObject({
      top_p: 0.5,
      stop: ['END'],
      seed: 7,
      presence_penalty: 0.25,
      frequency_penalty: -0.5,
      max_tokens: 64,
      response_format: { type: 'json_object' },
      reasoning_effort: 'low',
    });
    expect(body?.temperature).toBeUndefined();
    expect(body?.messages?.[0]).toEqual({ role: 'system', content: 'Answer in JSON.' });
  });

  it('answers chat.completions.parse with a zod schema: the schema reaches the provider and the reply is parsed', async () => {
    const Weather = z.object({ city: z.string(), celsius: z.number() });
    llm.script({ text: '{"city":"Paris","celsius":21}' });
    const completion = await client.chat.completions.parse({
      model: 'local/small',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      response_format: zodResponseFormat(Weather, 'weather'),
    });
    expect(completion.choices[0]?.message.parsed).toEqual({ city: 'Paris', celsius: 21 });
    expect(bodies()[0]?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'weather', strict: true, schema: { type: 'object', required: ['city', 'celsius'] } },
    });
  });

  it('hands a client tool call back with finish_reason tool_calls, and continues from the tool message', async () => {
    llm.script(
      { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }], finishReason: 'tool_calls' },
      { text: 'It is sunny in Paris.' },
    );
    const first = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
    });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(bodies()[0]?.tools?.map((tool) => tool.function.name)).toEqual(['clock', 'get_weather']);

    const second = await client.chat.completions.create({
      model: 'local/small',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        choice!.message,
        { role: 'tool', tool_call_id: 'call_w1', content: '{"sky":"sunny"}' },
      ],
    });
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'It is sunny in Paris.' } });
    expect(bodies()[1]?.messages?.slice(1)).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_w1', content: '{"sky":"sunny"}' },
    ]);
  });

  it("streams a client tool call as delta.tool_calls in OpenAI's shape", async () => {
    llm.script({
      text: 'Let me check.',
      toolCalls: [{ id: 'call_s1', name: 'get_weather', arguments: { city: 'Oslo' } }],
      finishReason: 'tool_calls',
    });
    const stream = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'Oslo?' }],
      tools: [weatherTool],
      stream: true,
    });
    let text = '';
    const calls: { id?: string; name?: string; arguments: string }[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? '';
      for (const piece of choice?.delta.tool_calls ?? []) {
        const call = (calls[piece.index] ??= { arguments: '' });
        if (piece.id !== undefined) call.id = piece.id;
        if (piece.function?.name !== undefined) call.name = piece.function.name;
        call.arguments += piece.function?.arguments ?? '';
      }
      finish = choice?.finish_reason ?? finish;
    }
    expect(text).toBe('Let me check.');
    expect(calls).toEqual([{ id: 'call_s1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(finish).toBe('tool_calls');
  });

  it("keeps running the agent's own tools inside the gateway", async () => {
    llm.script({ toolCalls: [{ name: 'clock', arguments: {} }], finishReason: 'tool_calls' }, { text: 'It is noon.' });
    const completion = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'Time?' }],
      tools: [weatherTool],
    });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'It is noon.' } });
    expect(bodies()[1]?.messages?.at(-1)).toMatchObject({ role: 'tool', content: '{"now":"noon"}' });
  });

  it("returns only the client's calls when a step mixes them with the agent's, which are not run", async () => {
    llm.script({
      toolCalls: [
        { id: 'call_a', name: 'clock', arguments: {} },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
      finishReason: 'tool_calls',
    });
    const completion = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'Time and weather?' }],
      tools: [weatherTool],
    });
    expect(completion.choices[0]?.message.tool_calls?.map((call) => call.id)).toEqual(['call_b']);
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('applies a forcing tool_choice to the first model call only', async () => {
    llm.script({ toolCalls: [{ name: 'clock', arguments: {} }], finishReason: 'tool_calls' }, { text: 'Noon.' });
    await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'Time?' }],
      tools: [weatherTool],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    const [first, second] = bodies();
    expect(first).toMatchObject({ tool_choice: 'required', parallel_tool_calls: false });
    expect(second?.tool_choice).toBeUndefined();
    expect(second?.parallel_tool_calls).toBe(false);
  });

  it('refuses what it cannot honour with 400 naming the field', async () => {
    const refusal = async (body: Record<string, unknown>) => {
      const response = await fetch(`${fx.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.tokens.api}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'local/small', messages: [{ role: 'user', content: 'x' }], ...body }),
      });
      return {
        status: response.status,
        param: ((await response.json()) as { error?: { param?: string } }).error?.param,
      };
    };
    expect(await refusal({ n: 2 })).toEqual({ status: 400, param: 'n' });
    expect(await refusal({ max_tokens: 10, max_completion_tokens: 20 })).toEqual({ status: 400, param: 'max_tokens' });
    expect(
      await refusal({ tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'nope' } } }),
    ).toEqual({ status: 400, param: 'tool_choice' });
    expect(await refusal({ tools: [{ type: 'function', function: { name: 'clock' } }] })).toEqual({
      status: 400,
      param: 'tools',
    });
    expect(await refusal({ tools: [weatherTool, weatherTool] })).toEqual({ status: 400, param: 'tools[1].name' });
    expect(
      await refusal({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'call_none', content: 'y' },
        ],
      }),
    ).toEqual({ status: 400, param: 'tool_call_id' });
    expect(await refusal({ response_format: { type: 'xml' } })).toEqual({ status: 400, param: 'response_format.type' });
    expect(await refusal({ logprobs: true })).toEqual({ status: 400, param: 'logprobs' });
    expect(llm.chatRequests()).toHaveLength(0);
  });

  it("refuses a field the target's provider has no way to honour, naming field and provider, and sends the rest", async () => {
    const refused = await client.chat.completions
      .create({ model: 'claude/sonnet', messages: [{ role: 'user', content: 'x' }], seed: 1 })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 400,
      param: 'seed',
      message: expect.stringContaining("Provider 'claude'"),
    });
    const effort = await client.chat.completions
      .create({ model: 'claude/sonnet', messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'low' })
      .catch((error: unknown) => error);
    expect(effort).toMatchObject({ status: 400, param: 'reasoning_effort' });
    llm.script({ text: 'ok' });
    await client.chat.completions.create({
      model: 'claude/sonnet',
      messages: [{ role: 'user', content: 'x' }],
      top_p: 0.9,
      stop: ['END'],
    });
    expect(llm.requests.at(-1)).toMatchObject({
      endpoint: 'anthropic-messages',
      body: { top_p: 0.9, stop_sequences: ['END'] },
    });
  });
});
