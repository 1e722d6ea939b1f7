// POST /v1/chat/completions through the official openai SDK and raw HTTP, over the real turn loop and the fake LLM.
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

const UUID = /^chatcmpl-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Body {
  model?: string;
  messages?: { role: string; content: unknown }[];
  temperature?: number;
  max_tokens?: number;
}

describe('POST /v1/chat/completions', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      agents: {
        default: {
          name: 'Assistant',
          provider: 'local',
          model: 'small',
          maxSteps: 3,
          systemPrompt: 'You are the default agent.',
        },
        writer: { name: 'Writer', provider: 'local', model: 'large', maxSteps: 1 },
      },
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

  const lastBody = (): Body => (llm.chatRequests().at(-1)?.body ?? {}) as Body;

  it('answers one chat.completion with the request model, a chatcmpl id, the mapped finish reason and usage', async () => {
    llm.script({ text: 'Hello there', usage: { inputTokens: 12, outputTokens: 3 } });
    const completion = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.id).toMatch(UUID);
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'local/small',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    expect(completion.choices).toHaveLength(1);
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(60);
  });

  it('runs the default agent with a provider/model or a bare model id, and an agent with its own model', async () => {
    await client.chat.completions.create({ model: 'local/large', messages: [{ role: 'user', content: 'a' }] });
    expect(lastBody().model).toBe('large');
    expect(lastBody().messages?.[0]).toEqual({ role: 'system', content: 'You are the default agent.' });
    await client.chat.completions.create({ model: 'large', messages: [{ role: 'user', content: 'b' }] });
    expect(lastBody().model).toBe('large');
    const byAgent = await client.chat.completions.create({
      model: 'writer',
      messages: [{ role: 'user', content: 'c' }],
    });
    expect(lastBody().model).toBe('large');
    expect(lastBody().messages?.[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
    expect(byAgent.model).toBe('writer');
  });

  it('joins system messages into the system prompt, seeds the earlier messages, and sends the last user message', async () => {
    await client.chat.completions.create({
      model: 'local/small',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'system', content: 'Answer in French.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'second' },
            { type: 'text', text: 'question' },
          ],
        },
      ],
    });
    expect(lastBody().messages).toEqual([
      { role: 'system', content: 'Be brief.\nAnswer in French.' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second\nquestion' },
    ]);
  });

  it('keeps no history between requests, and by default stores neither session nor transcript, only evidence', async () => {
    const first = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'remember 42' }],
    });
    const second = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'what number?' }],
    });
    expect(lastBody().messages?.filter((message) => message.role !== 'system')).toEqual([
      { role: 'user', content: 'what number?' },
    ]);
    expect(
      fx.db.prepare("SELECT count(*) FROM sessions WHERE session_key LIKE 'default:openai-api:openai:%'").pluck().get(),
    ).toBe(0);
    expect(
      fx.db
        .prepare("SELECT count(*) FROM session_messages WHERE session_key LIKE 'default:openai-api:openai:%'")
        .pluck()
        .get(),
    ).toBe(0);
    await fx.flushEvidence();
    for (const { id } of [first, second]) {
      const key = `default:openai-api:openai:${id}`;
      expect(fx.db.prepare('SELECT count(*) FROM session_index WHERE session_key = ?').pluck().get(key)).toBe(1);
      expect(fx.db.prepare('SELECT count(*) FROM token_usage WHERE session_key = ?').pluck().get(key)).toBe(1);
    }
  });

  it('stores each request as a session of its own, with its transcript, when openai.storeTranscripts is true', async () => {
    fx.settings.storeTranscripts = true;
    try {
      const completion = await client.chat.completions.create({
        model: 'local/small',
        messages: [{ role: 'user', content: 'keep me' }],
      });
      const key = `default:openai-api:openai:${completion.id}`;
      expect(completion.id).toMatch(/^chatcmpl-[0-9a-f-]{36}$/);
      expect(fx.db.prepare('SELECT owner_id FROM sessions WHERE session_key = ?').pluck().get(key)).toBe('api-client');
      const rows = fx.db
        .prepare('SELECT role, content FROM session_messages WHERE session_key = ? ORDER BY id')
        .all(key);
      expect(rows).toEqual([
        { role: 'user', content: 'keep me' },
        { role: 'assistant', content: completion.choices[0]?.message.content },
      ]);
    } finally {
      fx.settings.storeTranscripts = false;
    }
  });

  it("lets the request's store field decide over openai.storeTranscripts", async () => {
    const kept = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'keep' }],
      store: true,
    });
    const sessionCount = (id: string) =>
      fx.db
        .prepare('SELECT count(*) FROM sessions WHERE session_key = ?')
        .pluck()
        .get(`default:openai-api:openai:${id}`);
    expect(sessionCount(kept.id)).toBe(1);
    fx.settings.storeTranscripts = true;
    try {
      const dropped = await client.chat.completions.create({
        model: 'local/small',
        messages: [{ role: 'user', content: 'drop' }],
        store: false,
      });
      expect(sessionCount(dropped.id)).toBe(0);
    } finally {
      fx.settings.storeTranscripts = false;
    }
  });

  it('passes temperature and max_tokens to the provider', async () => {
    await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.25,
      max_tokens: 42,
    });
    expect(lastBody().temperature).toBe(0.25);
    expect(lastBody().max_tokens).toBe(42);
  });

  it('maps a turn that ran out of steps to finish_reason length', async () => {
    llm.script({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] });
    const completion = await client.chat.completions.create({
      model: 'writer',
      messages: [{ role: 'user', content: 'use a tool' }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
  });

  it('streams a role chunk, one chunk per delta, the finish chunk and [DONE], with one id on every chunk', async () => {
    llm.script({ deltas: ['Hel', 'lo ', 'world'] });
    const stream = await client.chat.completions.create({
      model: 'local/small',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { content: 'lo ' },
      { content: 'world' },
      {},
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual([null, null, null, null, 'stop']);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]?.id).toMatch(UUID);
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: 'local/small' });
    expect(chunks.some((chunk) => 'usage' in chunk && chunk.usage !== undefined)).toBe(false);
  });

  it('adds the usage chunk with an empty choices array only when stream_options.include_usage is true', async () => {
    llm.script({ text: 'counted', usage: { inputTokens: 7, outputTokens: 2 } });
    const stream = await client.chat.completions.create({
      model: 'local/small',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
  });

  it('ends a raw stream with data: [DONE] after the finish chunk', async () => {
    llm.script({ text: 'raw' });
    const response = await fetch(`${fx.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.rpc}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/small', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text.split('\n\n').filter((event) => event !== '');
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events.at(-2)?.slice(6) ?? '{}')).toMatchObject({
      choices: [{ delta: {}, finish_reason: 'stop' }],
    });
  });

  it('reports an upstream failure in the middle of a stream as an error event the SDK raises', async () => {
    llm.script({ deltas: ['one ', 'two ', 'three ', 'four'], dropAfterChunks: 2, chunkDelayMs: 50 });
    const stream = await client.chat.completions.create({
      model: 'local/small',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const contents: string[] = [];
    const failure = await (async () => {
      try {
        for await (const chunk of stream) contents.push(chunk.choices[0]?.delta.content ?? '');
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).type).toBe('server_error');
    // The deltas that arrived before the cut were streamed (the last one may race the cut itself).
    expect(['one ', 'one two ']).toContain(contents.join(''));
  });

  it('writes the mid-stream error as data: {"error": {message, type, param, code: null}} and no [DONE]', async () => {
    llm.script({ deltas: ['one ', 'two'], dropAfterChunks: 1 });
    const response = await fetch(`${fx.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/small', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const events = (await response.text()).split('\n\n').filter((event) => event !== '');
    expect(events).not.toContain('data: [DONE]');
    const last = JSON.parse(events.at(-1)?.slice(6) ?? '{}') as { error?: Record<string, unknown> };
    expect(last.error).toMatchObject({ type: 'server_error', param: null, code: null });
    expect(typeof last.error?.message).toBe('string');
  });

  it('answers 502 server_error when the model call fails before any output', async () => {
    llm.script({ status: 400, errorMessage: 'bad upstream request' });
    const response = await fetch(`${fx.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/small', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { type: 'server_error', param: null, code: null } });
  });
});
