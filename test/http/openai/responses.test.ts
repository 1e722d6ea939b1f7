// POST /v1/responses through the openai SDK and raw HTTP: response shape, stream events, previous_response_id.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

const STREAM_ORDER = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
  'response.output_text.delta',
  'response.output_text.delta',
  'response.output_text.done',
  'response.content_part.done',
  'response.output_item.done',
  'response.completed',
];

interface Body {
  messages?: { role: string; content: unknown }[];
  temperature?: number;
  max_tokens?: number;
}

describe('POST /v1/responses', () => {
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

  const lastBody = (): Body => (llm.chatRequests().at(-1)?.body ?? {}) as Body;
  const post = async (body: unknown, token: string = fx.tokens.api) => {
    const response = await fetch(`${fx.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };

  it('answers a response object with one assistant message of output_text and usage', async () => {
    llm.script({ text: 'Hi from the model', usage: { inputTokens: 9, outputTokens: 4 } });
    const response = await client.responses.create({
      model: 'local/small',
      input: 'hello',
      metadata: { ticket: '42' },
    });
    expect(response.id).toMatch(/^resp_[0-9a-f-]{36}$/);
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'local/small',
      metadata: { ticket: '42' },
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hi from the model', annotations: [] }],
        },
      ],
      usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
    });
    expect(response.output[0]?.id).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(response.output_text).toBe('Hi from the model');
    expect(Math.abs(response.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(
      fx.db.prepare('SELECT session_key FROM openai_responses WHERE response_id = ?').pluck().get(response.id),
    ).toBe(`default:openai-api:openai:${response.id}`);
  });

  it('uses instructions and system messages as the system prompt, seeds earlier messages, and passes the sampling fields', async () => {
    await client.responses.create({
      model: 'local/small',
      instructions: 'Be terse.',
      temperature: 0.5,
      max_output_tokens: 64,
      input: [
        { role: 'developer', content: 'Speak French.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'premier' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'second' },
            { type: 'input_text', text: 'part' },
          ],
        },
      ],
    });
    expect(lastBody().messages).toEqual([
      { role: 'system', content: 'Be terse.\nSpeak French.' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'premier' },
      { role: 'user', content: 'second\npart' },
    ]);
    expect(lastBody().temperature).toBe(0.5);
    expect(lastBody().max_tokens).toBe(64);
  });

  it('streams the events in order, numbered from 0, and the SDK assembles the final response', async () => {
    llm.script({ deltas: ['Hello', ' world'] });
    const stream = client.responses.stream({ model: 'local/small', input: 'hi' });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual(STREAM_ORDER);
    expect(events.map((event) => event.sequence_number)).toEqual(STREAM_ORDER.map((_type, index) => index));
    const final = await stream.finalResponse();
    expect(final).toMatchObject({ status: 'completed', output_text: 'Hello world' });
    expect(events[0]).toMatchObject({ response: { status: 'in_progress', output: [] } });
    expect(
      events
        .filter((event) => event.type === 'response.output_text.delta')
        .map((event) => 'delta' in event && event.delta),
    ).toEqual(['Hello', ' world']);
  });

  it('names each raw SSE frame after the type of its data', async () => {
    llm.script({ deltas: ['a', 'b'] });
    const { text } = await post({ model: 'local/small', input: 'hi', stream: true });
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    expect(frames.map((frame) => frame.split('\n')[0])).toEqual(STREAM_ORDER.map((type) => `event: ${type}`));
    for (const frame of frames) {
      const [eventLine, dataLine] = frame.split('\n');
      expect((JSON.parse(dataLine?.slice(6) ?? '{}') as { type: string }).type).toBe(eventLine?.slice(7));
    }
  });

  it('continues the previous response session with previous_response_id, streamed or not', async () => {
    llm.script({ text: 'Noted, 42.' }, { text: 'It was 42.' }, { text: 'Still 42.' });
    const first = await client.responses.create({ model: 'local/small', input: 'Remember 42.' });
    const second = await client.responses.create({
      model: 'local/small',
      input: 'What number?',
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(lastBody().messages?.slice(1)).toEqual([
      { role: 'user', content: 'Remember 42.' },
      { role: 'assistant', content: 'Noted, 42.' },
      { role: 'user', content: 'What number?' },
    ]);
    const stream = client.responses.stream({ model: 'local/small', input: 'Again?', previous_response_id: second.id });
    expect((await stream.finalResponse()).output_text).toBe('Still 42.');
    expect(lastBody().messages?.length).toBe(6);
  });

  it('answers 404 for an unknown previous_response_id and 403 permission_error for one created by another client', async () => {
    const unknown = await post({ model: 'local/small', input: 'x', previous_response_id: 'resp_nope' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual({
      error: {
        message: 'Response not found: resp_nope',
        type: 'not_found_error',
        param: 'previous_response_id',
        code: null,
      },
    });
    const mine = await client.responses.create({ model: 'local/small', input: 'private' });
    const calls = llm.chatRequests().length;
    const theirs = await post({ model: 'local/small', input: 'x', previous_response_id: mine.id }, fx.tokens.rpc);
    expect(theirs.status).toBe(403);
    expect(JSON.parse(theirs.text)).toEqual({
      error: {
        message: `Response ${mine.id} belongs to another client`,
        type: 'permission_error',
        param: 'previous_response_id',
        code: null,
      },
    });
    expect(llm.chatRequests()).toHaveLength(calls);
    // An admin token reaches every response, as it reaches every session.
    expect(
      (await post({ model: 'local/small', input: 'x', previous_response_id: mine.id }, fx.tokens.admin)).status,
    ).toBe(200);
  });

  it('refuses earlier turns in input when previous_response_id is set', async () => {
    const first = await client.responses.create({ model: 'local/small', input: 'one' });
    const response = await post({
      model: 'local/small',
      previous_response_id: first.id,
      input: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ],
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ error: { param: 'input', type: 'invalid_request_error' } });
  });

  it('refuses unknown fields, images, bad values and unknown models with the OpenAI envelope', async () => {
    const expectError = async (body: unknown, status: number, param: string | null) => {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(JSON.parse(response.text)).toMatchObject({ error: { param, code: null } });
    };
    await expectError({ model: 'local/small', input: 'x', reasoning: { summary: 'auto' } }, 400, 'reasoning.summary');
    await expectError({ model: 'local/small', input: 'x', tools: [{ type: 'web_search' }] }, 400, 'tools[0].type');
    await expectError({ model: 'local/small', input: 'x', temperature: 2.5 }, 400, 'temperature');
    await expectError({ model: 'local/small', input: 'x', max_output_tokens: 0 }, 400, 'max_output_tokens');
    await expectError(
      {
        model: 'local/small',
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }],
      },
      400,
      'input[0].content[0]',
    );
    await expectError({ model: 'local/small', input: [{ role: 'assistant', content: 'only me' }] }, 400, 'input');
    await expectError({ model: 'nope/nope', input: 'x' }, 404, 'model');
  });

  it('ends a stream with response.failed when the model fails mid-answer, and answers 502 when not streaming', async () => {
    llm.script({ deltas: ['partial ', 'more ', 'text'], dropAfterChunks: 1 });
    const { text } = await post({ model: 'local/small', input: 'hi', stream: true });
    const types = text
      .split('\n\n')
      .filter((frame) => frame !== '')
      .map((frame) => frame.split('\n')[0]);
    expect(types.at(-1)).toBe('event: response.failed');
    expect(types).not.toContain('event: response.completed');
    const failed = JSON.parse(text.trim().split('\n').at(-1)?.slice(6) ?? '{}') as {
      response: { status: string; error: { code: string } };
    };
    expect(failed.response).toMatchObject({ status: 'failed', error: { code: 'server_error' } });

    llm.script({ status: 400, errorMessage: 'bad' });
    const plain = await post({ model: 'local/small', input: 'hi' });
    expect(plain.status).toBe(502);
    expect(JSON.parse(plain.text)).toMatchObject({ error: { type: 'server_error' } });
  });

  it('refuses metadata keys that would become forbidden object keys, before any model call', async () => {
    const calls = llm.chatRequests().length;
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      // Raw text: JSON.stringify of an object literal cannot carry an own __proto__ key.
      const response = await fetch(`${fx.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.tokens.api}`, 'content-type': 'application/json' },
        body: `{"model":"local/small","input":"hi","metadata":{"${key}":"x"}}`,
      });
      expect(response.status, key).toBe(400);
      const body = (await response.json()) as { error: { type: string; message: string } };
      expect(body.error.type, key).toBe('invalid_request_error');
      expect(body.error.message, key).toContain(`metadata.${key}`);
    }
    expect(llm.chatRequests()).toHaveLength(calls);
  });
});
