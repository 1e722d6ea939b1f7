// End to end over each wire protocol: a started gateway whose provider speaks OpenAI Chat, Anthropic Messages or
// Gemini to the fake LLM server, driven through /v1/chat/completions and agent.execute over real HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/index.js';
import { startFakeLlm, type FakeEndpoint, type FakeLlm, type RecordedRequest } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

type Body = Record<string, unknown>;
type ProviderInput = NonNullable<ConfigInput['providers']>[string];

const isBody = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);
const bodies = (value: unknown): Body[] => (Array.isArray(value) ? value.filter(isBody) : []);

interface Protocol {
  type: 'openai' | 'anthropic' | 'google';
  endpoint: FakeEndpoint;
  provider(llm: FakeLlm): ProviderInput;
  /** The tool results the gateway sent back in a request body, as `<name or id>:<content>`. */
  toolResults(body: Body): string[];
}

const PROTOCOLS: Protocol[] = [
  {
    type: 'openai',
    endpoint: 'openai-chat',
    provider: (llm) => ({
      type: 'openai',
      baseUrl: llm.baseUrl,
      apiKey: 'sk-openai-test',
      models: [{ id: 'fake-model' }],
    }),
    toolResults: (body) =>
      bodies(body.messages)
        .filter((message) => message.role === 'tool')
        .map((message) => `${String(message.tool_call_id)}:${String(message.content)}`),
  },
  {
    type: 'anthropic',
    endpoint: 'anthropic-messages',
    provider: (llm) => ({
      type: 'anthropic',
      baseUrl: llm.baseUrl,
      apiKey: 'sk-ant-test',
      models: [{ id: 'fake-model' }],
    }),
    toolResults: (body) =>
      bodies(body.messages)
        .flatMap((message) => bodies(message.content))
        .filter((block) => block.type === 'tool_result')
        .map(
          (block) =>
            `${String(block.tool_use_id)}:${
              typeof block.content === 'string'
                ? block.content
                : bodies(block.content)
                    .map((part) => String(part.text))
                    .join('')
            }`,
        ),
  },
  {
    type: 'google',
    endpoint: 'google-gemini',
    provider: (llm) => ({
      type: 'google',
      baseUrl: llm.geminiBaseUrl,
      apiKey: 'gemini-test-key',
      models: [{ id: 'fake-model' }],
    }),
    toolResults: (body) =>
      bodies(body.contents)
        .flatMap((content) => bodies(content.parts))
        .map((part) => part.functionResponse)
        .filter(isBody)
        .map((response) => `${String(response.name)}:${JSON.stringify(response.response)}`),
  },
];

interface ChatCompletion {
  choices: { message: { content: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

describe.each(PROTOCOLS)('e2e over the $type wire', (protocol) => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    const main = protocol.provider(llm);
    gateway = await startGateway({
      providers: {
        main,
        // The same protocol under another name, so the auth cooldown and breaker strikes of the error cases stay off `main`.
        failing: main,
        backup: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'backup-model' }] },
      },
      agents: {
        default: { name: 'Assistant', provider: 'main', model: 'fake-model', tools: ['current_time'] },
        failover: { name: 'Failover', provider: 'main', model: 'fake-model', fallbackModels: ['backup/backup-model'] },
        failing: { name: 'Failing', provider: 'failing', model: 'fake-model' },
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.reset();
  });

  const complete = (body: Body, signal?: AbortSignal) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal === undefined ? {} : { signal }),
    });

  const execute = async (agentId: string, message: string, peerId: string) => {
    const response = await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', {
      agentId,
      message,
      sessionKey: { tenantId: 'default', userId: 'wire', channelId: 'test', peerId: `${protocol.type}-${peerId}` },
    });
    if (response.error !== undefined) throw new Error(`agent.execute: ${JSON.stringify(response.error)}`);
    return response.result as { response: string; finishReason: string };
  };

  const explain = async (peerId: string) => {
    const response = await callRpc(gateway.url, gateway.tokens.admin, 'obs.explain', {
      sessionKey: `default:wire:test:${protocol.type}-${peerId}`,
    });
    return response.result as { outcome: { endReason: string } };
  };

  const upstream = (): RecordedRequest[] => llm.chatRequests();

  it('answers a plain completion with the upstream usage', async () => {
    llm.script({ text: 'Plain answer', usage: { inputTokens: 11, outputTokens: 3 } });
    const response = await complete({ model: 'main/fake-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as ChatCompletion;
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Plain answer' }, finish_reason: 'stop' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 3 });
    expect(upstream().map((request) => request.endpoint)).toEqual([protocol.endpoint]);
    expect(upstream()[0]?.isStream).toBe(true);
  });

  it('streams a completion delta by delta and ends it with [DONE]', async () => {
    llm.script({ deltas: ['Hel', 'lo ', 'wire'] });
    const response = await complete({
      model: 'main/fake-model',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const events = (await response.text()).split('\n\n').filter((event) => event !== '');
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map(
      (event) =>
        JSON.parse(event.slice('data: '.length)) as {
          choices: { delta: { content?: string }; finish_reason: string | null }[];
        },
    );
    expect(
      chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((text) => text !== undefined && text !== ''),
    ).toEqual(['Hel', 'lo ', 'wire']);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('runs a tool round trip: the call goes to the tool, its result back upstream, the answer to the client', async () => {
    llm.script({ toolCalls: [{ id: 'call_clock', name: 'current_time', arguments: {} }] }, { text: 'It is late.' });
    const result = await execute('default', 'What time is it?', 'tools');
    expect(result).toMatchObject({ response: 'It is late.', finishReason: 'stop' });
    const [first, second] = upstream();
    expect(first?.endpoint).toBe(protocol.endpoint);
    const results = protocol.toolResults(isBody(second?.body) ? second.body : {});
    expect(results).toHaveLength(1);
    expect(results[0]).toMatch(protocol.type === 'google' ? /^current_time:/ : /^call_clock:/);
  });

  it.each([
    ['stop', 'stop', 'completed'],
    ['length', 'length', 'output_starved'],
    ['content_filter', 'stop', 'completed'],
  ] as const)(
    'maps the upstream finish reason %s (turn finish reason %s, end reason %s)',
    async (wireReason, turnReason, endReason) => {
      llm.script({ text: `Ended by ${wireReason}`, finishReason: wireReason });
      const result = await execute('default', 'hi', `finish-${wireReason}`);
      expect(result).toMatchObject({ response: `Ended by ${wireReason}`, finishReason: turnReason });
      expect((await explain(`finish-${wireReason}`)).outcome.endReason).toBe(endReason);
    },
  );

  it('falls back to the second provider when the first answers 503', async () => {
    llm.script({ status: 503, errorMessage: 'overloaded' }, { text: 'From the backup' });
    const response = await complete({ model: 'failover', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as ChatCompletion;
    expect(completion.choices[0]?.message.content).toBe('From the backup');
    expect(
      upstream().map((request) => [request.endpoint, isBody(request.body) ? request.body.model : undefined]),
    ).toEqual([
      [protocol.endpoint, protocol.type === 'google' ? undefined : 'fake-model'],
      ['openai-chat', 'backup-model'],
    ]);
  });

  it('closes the upstream request when the client disconnects mid-stream', async () => {
    llm.script({ text: 'one two three four five six seven eight nine ten', chunkDelayMs: 300 });
    const controller = new AbortController();
    const response = await complete(
      { model: 'main/fake-model', stream: true, messages: [{ role: 'user', content: 'count' }] },
      controller.signal,
    );
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('"one')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    controller.abort();
    await expect.poll(() => upstream().at(-1)?.closedByClient, { timeout: 10_000 }).toBe(true);
  });

  it.each([
    [429, 'rate_limit'],
    [400, 'bad_request'],
    [500, 'server'],
    // Last: an auth failure starts the provider's cooldown.
    [401, 'auth'],
  ] as const)(
    'answers an upstream %i error envelope as a 502 naming the kind %s, the status and the masked upstream message',
    async (status, kind) => {
      llm.script({
        status,
        errorMessage: 'upstream detail for sk-live-0123456789abcdefghijklmn',
        headers: status === 429 ? { 'retry-after': '7' } : {},
      });
      const response = await complete({ model: 'failing', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBe(502);
      const text = await response.text();
      // DESIGN §3 "upstream failures": the provider's own message and status reach the client, secrets masked.
      expect(JSON.parse(text)).toMatchObject({ error: { type: 'server_error', upstream_status: status } });
      expect(text).toContain(`${kind} (HTTP ${status}): upstream detail for ***`);
      expect(text).not.toContain('sk-live-0123456789abcdefghijklmn');
    },
  );
});
