// The scripted fake LLM server itself, driven by the official openai client and plain fetch.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeVector, startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';

describe('fake LLM server', () => {
  let llm: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model', 'other-model'] });
    client = new OpenAI({ baseURL: llm.baseUrl, apiKey: 'test', maxRetries: 0 });
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(() => llm.reset());

  it('echoes the last user message when nothing is scripted, and records the request', async () => {
    const completion = await client.chat.completions.create({
      model: 'fake-model',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'ping' },
      ],
      temperature: 0.5,
    });
    expect(completion.choices[0]?.message.content).toBe('Echo: ping');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(llm.requests[0]).toMatchObject({ endpoint: 'openai-chat', isStream: false, body: { temperature: 0.5 } });
    expect(llm.requests[0]?.headers.authorization).toBe('Bearer test');
  });

  it('streams scripted deltas, tool call deltas and the usage chunk the openai client understands', async () => {
    llm.script({
      text: 'abcdef',
      chunks: 3,
      toolCalls: [{ id: 'call_x', name: 'lookup', arguments: { q: 'z' } }],
      usage: { inputTokens: 7, outputTokens: 5 },
    });
    const stream = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const contents: string[] = [];
    let args = '';
    let finishReason: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) contents.push(choice.delta.content);
      for (const call of choice?.delta.tool_calls ?? []) args += call.function?.arguments ?? '';
      finishReason = choice?.finish_reason ?? finishReason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(contents).toEqual(['ab', 'cd', 'ef']);
    expect(JSON.parse(args)).toEqual({ q: 'z' });
    expect(finishReason).toBe('tool_calls');
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
  });

  it('sends no usage chunk unless stream_options.include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage !== undefined && chunk.usage !== null)).toBe(false);
  });

  it('answers scripted errors with the protocol envelope and consumes replies in order', async () => {
    llm.script({ status: 429, errorMessage: 'slow down', headers: { 'retry-after': '2' } }, { text: 'second' });
    const failure = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    const ok = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(ok.choices[0]?.message.content).toBe('second');
    expect(llm.pending()).toBe(0);
  });

  it('speaks the Anthropic Messages stream event sequence', async () => {
    llm.script({ text: 'hi there', toolCalls: [{ id: 'toolu_1', name: 'calc', arguments: { a: 1 } }] });
    const response = await fetch(`${llm.baseUrl}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({
        model: 'claude',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'q' }],
      }),
    });
    const names = [...(await response.text()).matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('embeds deterministically (float and base64) and lists models', async () => {
    const floats = await client.embeddings.create({ model: 'e', input: ['a', 'b'], encoding_format: 'float' });
    expect(floats.data.map((item) => item.index)).toEqual([0, 1]);
    expect(floats.data[0]?.embedding).toEqual(fakeVector('a', 8));
    const decoded = await client.embeddings.create({ model: 'e', input: 'a' });
    expect(decoded.data[0]?.embedding[0]).toBeCloseTo(fakeVector('a', 8)[0] ?? NaN, 5);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['fake-model', 'other-model']);
  });

  it('answers 401 without the configured key and serves chat and embedding replies from their own queues', async () => {
    const locked = await startFakeLlm({ apiKey: 'right-key' });
    try {
      const wrong = await fetch(`${locked.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer wrong' },
        body: '{}',
      });
      expect(wrong.status).toBe(401);
      locked.script({ endpoint: 'embeddings', model: 'emb-v2' }, { text: 'chat reply' });
      const headers = { authorization: 'Bearer right-key', 'content-type': 'application/json' };
      const chat = await fetch(`${locked.baseUrl}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'm', messages: [] }),
      });
      expect(await chat.json()).toMatchObject({ choices: [{ message: { content: 'chat reply' } }] });
      const embedding = await fetch(`${locked.baseUrl}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'e', input: 'x' }),
      });
      expect(await embedding.json()).toMatchObject({ model: 'emb-v2' });
    } finally {
      await locked.close();
    }
  });
});
