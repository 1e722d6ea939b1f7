// The OpenAI-compatible API of a started gateway, driven by the official openai SDK, with the fake LLM as provider.
import OpenAI, { AuthenticationError, NotFoundError, PermissionDeniedError, RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

function gatewayOptions(llm: FakeLlm) {
  return {
    providers: {
      local: { type: 'openai-compatible' as const, baseUrl: llm.baseUrl, models: [{ id: 'small' }, { id: 'large' }] },
    },
    agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    embeddings: { provider: 'local', model: 'embed-small' },
  };
}

describe('e2e: OpenAI-compatible API', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startFakeLlm({ embeddingDimensions: 4 });
    gateway = await startGateway(gatewayOptions(llm));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('answers chat completions, plain and streamed with usage', async () => {
    llm.script({ text: 'Plain answer' }, { deltas: ['Stre', 'amed'], usage: { inputTokens: 3, outputTokens: 2 } });
    const completion = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'local/small',
      choices: [{ message: { role: 'assistant', content: 'Plain answer' }, finish_reason: 'stop' }],
    });
    const stream = await client.chat.completions.create({
      model: 'default',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? null)).toEqual(['', 'Stre', 'amed', null, null]);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });

  it('lists and retrieves models, then the agents (DESIGN §3 "/v1/models")', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(['local/small', 'local/large', 'default']);
    expect(await client.models.retrieve('default')).toEqual({
      id: 'default',
      object: 'model',
      created: 0,
      owned_by: 'agent',
    });
    expect(await client.models.retrieve('local/large')).toEqual({
      id: 'local/large',
      object: 'model',
      created: 0,
      owned_by: 'local',
    });
    await expect(client.models.retrieve('local/none')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('embeds as floats and as base64 that the SDK decodes to the same floats', async () => {
    const floats = await client.embeddings.create({ model: 'any', input: ['alpha', 'beta'], encoding_format: 'float' });
    const decoded = await client.embeddings.create({ model: 'any', input: ['alpha', 'beta'] });
    expect(floats.model).toBe('embed-small');
    expect(decoded.data.map((item) => item.embedding)).toEqual(
      floats.data.map((item) => item.embedding.map((value) => Math.fround(value))),
    );
  });

  it('answers responses and continues them with previous_response_id', async () => {
    const first = await client.responses.create({ model: 'local/small', input: 'My name is Ada.' });
    expect(first).toMatchObject({ object: 'response', status: 'completed', output_text: 'Echo: My name is Ada.' });
    const stream = client.responses.stream({
      model: 'local/small',
      input: 'Who am I?',
      previous_response_id: first.id,
    });
    const types = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    const body = llm.chatRequests().at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(body.messages.map((message) => message.content)).toContain('My name is Ada.');
  });

  it('maps 401 and 403 to the SDK error classes', async () => {
    const anonymous = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: 'wrong-token-0123456789abcdefghijklmnop',
      maxRetries: 0,
    });
    await expect(anonymous.models.list()).rejects.toBeInstanceOf(AuthenticationError);
    const mcp = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.mcpClient, maxRetries: 0 });
    await expect(mcp.models.list()).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('e2e: /v1 rate limit', () => {
  it('answers 429 rate_limit_error with Retry-After once the client is over the limit', async () => {
    const llm = await startFakeLlm();
    const gateway = await startGateway({
      ...gatewayOptions(llm),
      gateway: { rateLimit: { maxRequests: 1, windowMs: 60_000 } },
    });
    try {
      const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.rpc, maxRetries: 0 });
      await client.models.list();
      const refused = await client.models.list().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateLimitError);
      expect((refused as RateLimitError).type).toBe('rate_limit_error');
      expect(Number((refused as RateLimitError).headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await gateway.close();
      await llm.close();
    }
  });
});
