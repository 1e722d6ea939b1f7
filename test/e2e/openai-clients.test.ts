// Clients this project did not write, against a started gateway, doing what their users do every day: the OpenAI
// Agents SDK in its default Responses mode, a LangGraph ReAct agent, openai-node's stream helper and models.retrieve.
import { HumanMessage, type AIMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import {
  Agent,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
  tool as agentsTool,
} from '@openai/agents';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

interface UpstreamMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

interface UpstreamBody {
  messages: UpstreamMessage[];
  tools?: { function: { name: string } }[];
  response_format?: unknown;
  [field: string]: unknown;
}

describe('e2e: mainstream clients, unmodified', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'mock-model' }] } },
      agents: {
        default: { name: 'Assistant', provider: 'local', model: 'mock-model' },
        helper: { name: 'Helper', provider: 'local', model: 'mock-model' },
      },
    });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
  });

  const bodies = (): UpstreamBody[] => llm.chatRequests().map((request) => request.body as UpstreamBody);

  it('runs an OpenAI Agents SDK agent in Responses mode with a function tool, a handoff and structured output', async () => {
    setTracingDisabled(true);
    setDefaultOpenAIClient(client);
    setOpenAIAPI('responses');
    const weather = agentsTool({
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    const billing = new Agent({
      name: 'Billing agent',
      instructions: 'You answer billing questions.',
      model: 'local/mock-model',
      outputType: z.object({ amount: z.number() }),
    });
    const triage = new Agent({
      name: 'Triage',
      instructions: 'Route the user.',
      model: 'local/mock-model',
      tools: [weather],
      handoffs: [billing],
    });
    llm.script(
      { toolCalls: [{ id: 'call_weather', name: 'get_weather', arguments: { city: 'Bern' } }] },
      { toolCalls: [{ id: 'call_handoff', name: 'transfer_to_Billing_agent', arguments: {} }] },
      { text: '{"amount":12}' },
    );

    const result = await run(triage, 'Weather in Bern, then my invoice?');

    expect(result.finalOutput).toEqual({ amount: 12 });
    expect(result.lastAgent?.name).toBe('Billing agent');
    const sent = bodies();
    expect(sent).toHaveLength(3);
    expect(sent[0]?.tools?.map((entry) => entry.function.name)).toEqual(['get_weather', 'transfer_to_Billing_agent']);
    expect(sent[1]?.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_weather', content: 'sunny in Bern' });
    expect(sent[2]?.response_format).toMatchObject({ type: 'json_schema' });
    expect(sent[2]?.messages[0]).toEqual({ role: 'system', content: 'You answer billing questions.' });

    // previousResponseId continues the stored response: the model sees the earlier turn.
    llm.script({ text: '{"amount":13}' });
    const next = await run(billing, 'And next month?', { previousResponseId: result.lastResponseId });
    expect(next.finalOutput).toEqual({ amount: 13 });
    expect(bodies()[3]?.messages.map((message) => message.content)).toContain('{"amount":12}');
  });

  it('runs a LangGraph createReactAgent tool loop over chat completions (ToolMessage carries name)', async () => {
    const getWeather = langchainTool(async ({ city }: { city: string }) => `sunny in ${city}`, {
      name: 'get_weather',
      description: 'Weather in a city',
      schema: z.object({ city: z.string() }),
    });
    const model = new ChatOpenAI({
      model: 'local/mock-model',
      apiKey: gateway.tokens.api,
      configuration: { baseURL: `${gateway.url}/v1` },
      maxRetries: 0,
    });
    const agent = createReactAgent({ llm: model, tools: [getWeather] });
    llm.script(
      { toolCalls: [{ id: 'call_lg', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Sunny in Oslo.' },
    );

    const state = await agent.invoke({ messages: [new HumanMessage('Weather in Oslo?')] });

    const last = state.messages.at(-1) as AIMessage;
    expect(last.content).toBe('Sunny in Oslo.');
    const sent = bodies();
    expect(sent).toHaveLength(2);
    expect(sent[1]?.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_lg', content: 'sunny in Oslo' });
  });

  it("pushes openai-node's chat.completions.stream() final message back into the next request", async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'lookup',
          description: 'Looks a word up',
          parameters: { type: 'object', properties: { word: { type: 'string' } } },
        },
      },
    ];
    llm.script(
      { toolCalls: [{ id: 'call_st', name: 'lookup', arguments: { word: 'gateway' } }] },
      { text: 'A gateway is a way in.' },
    );
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is a gateway?' }];

    const stream = client.chat.completions.stream({ model: 'mock-model', messages, tools });
    const final = await stream.finalMessage();
    expect(final.tool_calls?.[0]).toMatchObject({
      id: 'call_st',
      function: { name: 'lookup', arguments: '{"word":"gateway"}' },
    });
    messages.push(final, { role: 'tool', tool_call_id: 'call_st', content: 'a way in' });

    const answer = await client.chat.completions.create({ model: 'mock-model', messages });
    expect(answer.choices[0]?.message.content).toBe('A gateway is a way in.');
    expect(bodies()[1]?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_st', type: 'function', function: { name: 'lookup', arguments: '{"word":"gateway"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_st', content: 'a way in' },
    ]);
  });

  it('retrieves a model by bare id, provider/id and agent id, as chat accepts them', async () => {
    expect(await client.models.retrieve('mock-model')).toEqual({
      id: 'mock-model',
      object: 'model',
      created: 0,
      owned_by: 'local',
    });
    expect(await client.models.retrieve('local/mock-model')).toEqual({
      id: 'local/mock-model',
      object: 'model',
      created: 0,
      owned_by: 'local',
    });
    expect(await client.models.retrieve('helper')).toEqual({
      id: 'helper',
      object: 'model',
      created: 0,
      owned_by: 'agent',
    });
    await expect(client.models.retrieve('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});
