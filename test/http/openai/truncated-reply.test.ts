// A reply cut at its length (the provider's max tokens, or the gateway's cap on a server that ignores it) on /v1:
// chat finishes `length`, Responses is `incomplete` for `max_output_tokens`, and the text up to the cut is kept.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

/** The capped model's maxTokens; the gateway cuts its reply at 4 characters a token, twice over (output-limit.ts). */
const MAX_TOKENS = 250;
const CAP_CHARS = MAX_TOKENS * 8;

interface ChunkFrame {
  choices: { delta: { content?: string }; finish_reason: string | null }[];
}

describe('/v1: a reply cut at its length', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      extraProviders: {
        capped: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'short', maxTokens: MAX_TOKENS }] },
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

  async function streamed(body: Record<string, unknown>): Promise<string[]> {
    const response = await fetch(`${fx.url}/v1/${'input' in body ? 'responses' : 'chat/completions'}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(response.status).toBe(200);
    return (await response.text()).split('\n\n').filter((frame) => frame.trim() !== '');
  }

  it('chat: the provider stopped at max tokens, finish_reason length with its text', async () => {
    llm.script({ text: 'A partial ans', finishReason: 'length' });
    const completion = await client.chat.completions.create({
      model: 'local/small',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]).toMatchObject({ message: { content: 'A partial ans' }, finish_reason: 'length' });
  });

  it('chat: a first delta longer than the cap gives the text up to the cap and finish_reason length', async () => {
    llm.script({ deltas: ['w'.repeat(CAP_CHARS * 3)] });
    const completion = await client.chat.completions.create({
      model: 'capped/short',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]).toMatchObject({
      message: { content: 'w'.repeat(CAP_CHARS) },
      finish_reason: 'length',
    });
  });

  it('chat stream: the last delta is cut at the cap and the finish chunk says length', async () => {
    llm.script({ deltas: ['a'.repeat(1_500), 'b'.repeat(1_500), 'c'.repeat(10)] });
    const frames = await streamed({ model: 'capped/short', messages: [{ role: 'user', content: 'hi' }] });
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice('data: '.length)) as ChunkFrame);
    const contents = chunks
      .map((chunk) => chunk.choices[0]?.delta.content)
      .filter((text) => text !== undefined && text !== '');
    expect(contents).toEqual(['a'.repeat(1_500), 'b'.repeat(CAP_CHARS - 1_500)]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter((reason) => reason !== null)).toEqual([
      'length',
    ]);
  });

  it('responses: incomplete for max_output_tokens, its message incomplete, the text kept', async () => {
    llm.script({ text: 'Half of it', finishReason: 'length' });
    const response = await client.responses.create({ model: 'local/small', input: 'hi' });
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      error: null,
      output: [{ type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: 'Half of it' }] }],
    });
    expect(response.output_text).toBe('Half of it');
    // The stored copy is what was sent.
    expect(await client.responses.retrieve(response.id)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });

  it('responses stream: the text is cut at the cap and the stream ends with response.incomplete', async () => {
    llm.script({ deltas: ['x'.repeat(CAP_CHARS + 500)] });
    const frames = await streamed({ model: 'capped/short', input: 'hi' });
    const events = frames.map((frame) => {
      const [event = '', data = ''] = frame.split('\n');
      return {
        event: event.slice('event: '.length),
        data: JSON.parse(data.slice('data: '.length)) as Record<string, unknown>,
      };
    });
    expect(
      events.filter((entry) => entry.event === 'response.output_text.delta').map((entry) => entry.data.delta),
    ).toEqual(['x'.repeat(CAP_CHARS)]);
    expect(events.find((entry) => entry.event === 'response.output_item.done')?.data).toMatchObject({
      item: { status: 'incomplete' },
    });
    expect(events.at(-1)).toMatchObject({
      event: 'response.incomplete',
      data: {
        type: 'response.incomplete',
        response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
      },
    });
    expect(events.map((entry) => entry.event)).not.toContain('response.completed');
  });

  it('responses stream through the SDK: the final response is the incomplete one', async () => {
    llm.script({ text: 'Stopped short', finishReason: 'length' });
    const stream = client.responses.stream({ model: 'local/small', input: 'hi' });
    for await (const event of stream) expect(event.type).not.toBe('response.completed');
    expect(await stream.finalResponse()).toMatchObject({
      status: 'incomplete',
      output_text: 'Stopped short',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });
});
